// Live prices for the periodic refresh: on-demand from the Pricing API, spot from DescribeSpotPriceHistory. The
// calls themselves are the catalog refresh's (shared/aws/catalog-refresh.ts), so `karpless catalog refresh` and the
// Lambda price the same way; this module only shapes the result for storage.
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { onDemandPrices, type PricedOS, spotPrices } from '../catalog-refresh';

export interface PriceTable {
  region: string;
  /** ISO-8601 time of the refresh. */
  refreshedAt: string;
  onDemand: Record<string, number>;
  /** instance type → zone → price. */
  spot: Record<string, Record<string, number>>;
  /** Windows (License Included) prices, as the catalog's `windows` (docs/catalog.md, Windows); absent when a refresh
   * could not read them, so Windows offerings keep the catalog's. */
  windows?: { onDemand: Record<string, number>; spot: Record<string, Record<string, number>> };
}

export async function fetchOnDemandPrices(
  pricing: PricingClient,
  region: string,
  os: PricedOS = 'Linux',
): Promise<Record<string, number>> {
  return Object.fromEntries(await onDemandPrices(pricing, region, undefined, os));
}

export async function fetchSpotPrices(
  ec2: EC2Client,
  now: Date,
  os: PricedOS = 'Linux',
): Promise<Record<string, Record<string, number>>> {
  return Object.fromEntries(await spotPrices(ec2, now, undefined, os));
}
