// Live prices: on-demand from the Pricing API (GetProducts), spot from DescribeSpotPriceHistory. Linux, shared
// tenancy, no pre-installed software, no licence: the prices Karpenter uses.
import { type EC2Client, paginateDescribeSpotPriceHistory } from '@aws-sdk/client-ec2';
import { type PricingClient, paginateGetProducts } from '@aws-sdk/client-pricing';

export interface PriceTable {
  region: string;
  /** ISO-8601 time of the refresh. */
  refreshedAt: string;
  onDemand: Record<string, number>;
  /** instance type → zone → price. */
  spot: Record<string, Record<string, number>>;
}

const filter = (Field: string, Value: string) => ({ Type: 'TERM_MATCH' as const, Field, Value });

/** Parses one GetProducts PriceList entry (a JSON string) into [instanceType, USD/hour], if it is a usable price. */
export function parseProduct(entry: string): [string, number] | undefined {
  const doc = JSON.parse(entry) as {
    product?: { attributes?: Record<string, string> };
    terms?: { OnDemand?: Record<string, { priceDimensions?: Record<string, { pricePerUnit?: { USD?: string } }> }> };
  };
  const type = doc.product?.attributes?.instanceType;
  if (!type) return undefined;
  for (const term of Object.values(doc.terms?.OnDemand ?? {})) {
    for (const dim of Object.values(term.priceDimensions ?? {})) {
      const usd = Number(dim.pricePerUnit?.USD);
      if (Number.isFinite(usd) && usd > 0) return [type, usd];
    }
  }
  return undefined;
}

export async function fetchOnDemandPrices(pricing: PricingClient, region: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const input = {
    ServiceCode: 'AmazonEC2',
    Filters: [
      filter('regionCode', region),
      filter('operatingSystem', 'Linux'),
      filter('tenancy', 'Shared'),
      filter('preInstalledSw', 'NA'),
      filter('capacitystatus', 'Used'),
      filter('licenseModel', 'No License required'),
    ],
  };
  for await (const page of paginateGetProducts({ client: pricing }, input)) {
    for (const entry of page.PriceList ?? []) {
      const parsed = parseProduct(typeof entry === 'string' ? entry : JSON.stringify(entry));
      if (parsed) out[parsed[0]] = parsed[1];
    }
  }
  return out;
}

/** The current spot price per (type, zone): the newest history entry of each. */
export async function fetchSpotPrices(ec2: EC2Client, now: Date): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  const seenAt = new Map<string, number>();
  const input = { ProductDescriptions: ['Linux/UNIX'], StartTime: now };
  for await (const page of paginateDescribeSpotPriceHistory({ client: ec2 }, input)) {
    for (const p of page.SpotPriceHistory ?? []) {
      const price = Number(p.SpotPrice);
      if (!p.InstanceType || !p.AvailabilityZone || !Number.isFinite(price)) continue;
      const key = `${p.InstanceType}/${p.AvailabilityZone}`;
      const at = p.Timestamp?.getTime() ?? 0;
      if ((seenAt.get(key) ?? -1) >= at) continue;
      seenAt.set(key, at);
      const byZone = out[p.InstanceType] ?? {};
      byZone[p.AvailabilityZone] = price;
      out[p.InstanceType] = byZone;
    }
  }
  return out;
}
