// `karpless catalog refresh`: rebuilds an instance catalog for a region from the user's account, with the same
// shape as the embedded snapshot. Functions take clients (the CLI passes module-scope, retry-configured ones) and
// report progress through a callback, so tests drive them with aws-sdk-client-mock.
import {
  DescribeAvailabilityZonesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  type EC2Client,
  type InstanceTypeInfo as Ec2InstanceType,
} from '@aws-sdk/client-ec2';
import { type Filter, GetProductsCommand, type PricingClient } from '@aws-sdk/client-pricing';
import { parseInstanceTypeName } from '../catalog/names';
import type { Arch, Catalog, InstanceTypeInfo, WindowsPrices } from '../catalog/types';
import { eachPage } from './pages';

export type Progress = (message: string) => void;
const silent: Progress = () => {};

export interface Zone {
  name: string;
  id: string;
}

/** The region's availability zones (not Local or Wavelength Zones) that the account can use. */
export async function describeZones(ec2: EC2Client, region: string): Promise<Zone[]> {
  const out = await ec2.send(
    new DescribeAvailabilityZonesCommand({
      Filters: [
        { Name: 'region-name', Values: [region] },
        { Name: 'zone-type', Values: ['availability-zone'] },
      ],
    }),
  );
  return (out.AvailabilityZones ?? [])
    .filter((z) => z.ZoneName && z.ZoneId && (z.State === undefined || z.State === 'available'))
    .map((z) => ({ name: z.ZoneName as string, id: z.ZoneId as string }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Every HVM x86_64 or arm64 instance type, all pages. */
export async function describeInstanceTypes(ec2: EC2Client, progress: Progress = silent): Promise<Ec2InstanceType[]> {
  const types: Ec2InstanceType[] = [];
  const pages = await eachPage(
    (token) =>
      ec2.send(
        new DescribeInstanceTypesCommand({
          Filters: [
            { Name: 'supported-virtualization-type', Values: ['hvm'] },
            { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
          ],
          MaxResults: 100,
          NextToken: token,
        }),
      ),
    (out) => types.push(...(out.InstanceTypes ?? [])),
  );
  progress(`DescribeInstanceTypes: ${types.length} instance types (${pages} pages)`);
  return types;
}

/** Which zones offer each type. */
export async function describeOfferings(
  ec2: EC2Client,
  progress: Progress = silent,
): Promise<Map<string, Set<string>>> {
  const zonesByType = new Map<string, Set<string>>();
  let count = 0;
  await eachPage(
    (token) =>
      ec2.send(
        new DescribeInstanceTypeOfferingsCommand({
          LocationType: 'availability-zone',
          MaxResults: 1000,
          NextToken: token,
        }),
      ),
    (out) => {
      for (const o of out.InstanceTypeOfferings ?? []) {
        if (!o.InstanceType || !o.Location) continue;
        let zones = zonesByType.get(o.InstanceType);
        if (!zones) {
          zones = new Set();
          zonesByType.set(o.InstanceType, zones);
        }
        zones.add(o.Location);
        count++;
      }
    },
  );
  progress(`DescribeInstanceTypeOfferings: ${count} offerings for ${zonesByType.size} types`);
  return zonesByType;
}

/** The operating systems the catalog prices: Linux for every type, Windows (License Included) for Windows nodes. */
export type PricedOS = 'Linux' | 'Windows';

/** DescribeSpotPriceHistory's product description per priced OS. */
const SPOT_PRODUCT: Record<PricedOS, string> = { Linux: 'Linux/UNIX', Windows: 'Windows' };

/**
 * The Pricing API filters for shared-tenancy on-demand prices in one region. Windows asks for the License Included
 * SKUs ("No License required": the licence is in the price), never the cheaper bring-your-own-licence ones.
 */
export function onDemandFilters(region: string, os: PricedOS = 'Linux'): Filter[] {
  const term = (Field: string, Value: string): Filter => ({ Type: 'TERM_MATCH', Field, Value });
  return [
    term('regionCode', region),
    term('operatingSystem', os),
    term('tenancy', 'Shared'),
    term('preInstalledSw', 'NA'),
    term('capacitystatus', 'Used'),
    ...(os === 'Windows' ? [term('licenseModel', 'No License required')] : []),
  ];
}

interface PriceListItem {
  product?: { attributes?: { instanceType?: string } };
  terms?: { OnDemand?: Record<string, { priceDimensions?: Record<string, { pricePerUnit?: { USD?: string } }> }> };
}

/** $/h from one Pricing API document, or undefined when it carries no usable on-demand price. */
export function parsePriceListItem(doc: string): { instanceType: string; price: number } | undefined {
  const item = JSON.parse(doc) as PriceListItem;
  const instanceType = item.product?.attributes?.instanceType;
  if (!instanceType) return undefined;
  for (const term of Object.values(item.terms?.OnDemand ?? {})) {
    for (const dim of Object.values(term.priceDimensions ?? {})) {
      const price = Number(dim.pricePerUnit?.USD);
      if (Number.isFinite(price) && price > 0) return { instanceType, price };
    }
  }
  return undefined;
}

/** On-demand $/h per instance type (the Pricing client must be in a Pricing API region, e.g. us-east-1). */
export async function onDemandPrices(
  pricing: PricingClient,
  region: string,
  progress: Progress = silent,
  os: PricedOS = 'Linux',
): Promise<Map<string, number>> {
  const prices = new Map<string, number>();
  const pages = await eachPage(
    (token) =>
      pricing.send(
        new GetProductsCommand({
          ServiceCode: 'AmazonEC2',
          Filters: onDemandFilters(region, os),
          FormatVersion: 'aws_v1',
          MaxResults: 100,
          NextToken: token,
        }),
      ),
    (out) => {
      for (const doc of out.PriceList ?? []) {
        const parsed = parsePriceListItem(String(doc));
        // Several SKUs can match (for example license variants); the lowest is the one a plain launch pays.
        if (parsed)
          prices.set(parsed.instanceType, Math.min(prices.get(parsed.instanceType) ?? Infinity, parsed.price));
      }
    },
  );
  progress(`Pricing GetProducts: ${os} on-demand prices for ${prices.size} types (${pages} pages)`);
  return prices;
}

/** The latest spot price per type and zone (Linux/UNIX, or Windows). */
export async function spotPrices(
  ec2: EC2Client,
  now: Date,
  progress: Progress = silent,
  os: PricedOS = 'Linux',
): Promise<Map<string, Record<string, number>>> {
  const latest = new Map<string, { price: number; at: number }>();
  await eachPage(
    (token) =>
      ec2.send(
        new DescribeSpotPriceHistoryCommand({
          ProductDescriptions: [SPOT_PRODUCT[os]],
          StartTime: now,
          MaxResults: 1000,
          NextToken: token,
        }),
      ),
    (out) => {
      for (const p of out.SpotPriceHistory ?? []) {
        if (!p.InstanceType || !p.AvailabilityZone || p.SpotPrice === undefined) continue;
        const price = Number(p.SpotPrice);
        const at = p.Timestamp ? p.Timestamp.getTime() : 0;
        const key = `${p.InstanceType}|${p.AvailabilityZone}`;
        const seen = latest.get(key);
        if (Number.isFinite(price) && (!seen || at > seen.at)) latest.set(key, { price, at });
      }
    },
  );
  const byType = new Map<string, Record<string, number>>();
  for (const [key, { price }] of latest) {
    const [type, zone] = key.split('|') as [string, string];
    const zones = byType.get(type) ?? {};
    zones[zone] = price;
    byType.set(type, zones);
  }
  progress(`DescribeSpotPriceHistory: ${os} spot prices for ${byType.size} types in ${latest.size} type-zone pairs`);
  return byType;
}

const kebab = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function archOf(desc: Ec2InstanceType): Arch | undefined {
  const archs = desc.ProcessorInfo?.SupportedArchitectures ?? [];
  if (archs.includes('arm64')) return 'arm64';
  if (archs.includes('x86_64')) return 'amd64';
  return undefined;
}

export interface TypeFacts {
  zones: string[];
  onDemandPrice: number;
  spotPrice: Record<string, number>;
  /** Branch ENIs are not in DescribeInstanceTypes; they come from a known catalog when one has the type. */
  branchEnis?: number;
  networkBandwidthMbps?: number;
}

/** One DescribeInstanceTypes entry in catalog form; undefined when the name or architecture is unusable. */
export function toInstanceTypeInfo(desc: Ec2InstanceType, facts: TypeFacts): InstanceTypeInfo | undefined {
  const name = desc.InstanceType;
  const parsed = name ? parseInstanceTypeName(name) : undefined;
  const arch = archOf(desc);
  const vcpu = desc.VCpuInfo?.DefaultVCpus;
  const memoryMiB = desc.MemoryInfo?.SizeInMiB;
  if (!name || !parsed || !arch || !vcpu || !memoryMiB) return undefined;
  const network = desc.NetworkInfo;
  const card = network?.NetworkCards?.find((c) => c.NetworkCardIndex === (network.DefaultNetworkCardIndex ?? 0));
  const maxEnis = card?.MaximumNetworkInterfaces ?? network?.MaximumNetworkInterfaces;
  const ipv4PerEni = network?.Ipv4AddressesPerInterface;
  if (!maxEnis || !ipv4PerEni) return undefined;
  const info: InstanceTypeInfo = {
    name,
    family: parsed.family,
    category: parsed.category,
    generation: parsed.generation,
    size: parsed.size,
    vcpu,
    memoryMiB,
    arch,
    maxEnis,
    ipv4PerEni,
    branchEnis: facts.branchEnis ?? 0,
    hypervisor: desc.Hypervisor === 'nitro' || desc.Hypervisor === 'xen' ? desc.Hypervisor : '',
    bareMetal: desc.BareMetal ?? false,
    encryptionInTransit: network?.EncryptionInTransitSupported ?? false,
    currentGeneration: desc.CurrentGeneration ?? false,
    onDemandPrice: facts.onDemandPrice,
    spotPrice: facts.spotPrice,
    zones: facts.zones,
  };
  const manufacturer = desc.ProcessorInfo?.Manufacturer;
  if (manufacturer) info.cpuManufacturer = manufacturer.toLowerCase();
  const clock = desc.ProcessorInfo?.SustainedClockSpeedInGhz;
  if (clock) info.cpuClockMhz = Math.round(clock * 1000);
  addAccelerators(info, desc);
  if (network?.EfaSupported && network.EfaInfo?.MaximumEfaInterfaces) info.efa = network.EfaInfo.MaximumEfaInterfaces;
  const storage = desc.InstanceStorageInfo;
  if (storage?.TotalSizeInGB && storage.NvmeSupport !== 'unsupported') info.localNvmeGiB = storage.TotalSizeInGB;
  const bandwidth =
    facts.networkBandwidthMbps ?? (card?.BaselineBandwidthInGbps ? card.BaselineBandwidthInGbps * 1000 : undefined);
  if (bandwidth) info.networkBandwidthMbps = Math.round(bandwidth);
  const ebs = desc.EbsInfo?.EbsOptimizedInfo?.MaximumBandwidthInMbps;
  if (ebs) info.ebsBandwidthMbps = ebs;
  // The EBS attachment limit a new node's volumes are held to (catalog/ebs-limits.ts).
  const attachments = desc.EbsInfo?.MaximumEbsAttachments;
  if (attachments) info.maxEbsAttachments = attachments;
  const limitType = desc.EbsInfo?.AttachmentLimitType;
  if (limitType === 'shared' || limitType === 'dedicated') info.ebsAttachmentLimitType = limitType;
  if (name.includes('-flex.')) info.capabilityFlex = true;
  return info;
}

/** The type's GPUs, and its Neuron or Inferentia accelerators, on `info`. */
function addAccelerators(info: InstanceTypeInfo, desc: Ec2InstanceType): void {
  const gpus = desc.GpuInfo?.Gpus ?? [];
  const gpu = gpus[0];
  if (gpu?.Name) {
    info.gpu = {
      count: gpus.reduce((n, g) => n + (g.Count ?? 0), 0),
      name: kebab(gpu.Name),
      manufacturer: kebab(gpu.Manufacturer ?? ''),
      memoryMiB: gpu.MemoryInfo?.SizeInMiB ?? 0,
    };
  }
  const neuron = desc.NeuronInfo?.NeuronDevices?.[0];
  const inference = desc.InferenceAcceleratorInfo?.Accelerators?.[0];
  if (neuron?.Name) {
    const count = neuron.Count ?? 0;
    info.accelerator = {
      count,
      name: kebab(neuron.Name),
      manufacturer: 'aws',
      cores: count * (neuron.CoreInfo?.Count ?? 0),
    };
  } else if (inference?.Name) {
    const count = inference.Count ?? 0;
    // First-generation Inferentia chips have four NeuronCores each.
    info.accelerator = {
      count,
      name: kebab(inference.Name),
      manufacturer: kebab(inference.Manufacturer ?? 'aws'),
      cores: count * 4,
    };
  }
}

/** A type's Windows prices: x86 only (EKS runs no Windows on Graviton), and only with a Windows on-demand price. */
function windowsPricesOf(
  info: InstanceTypeInfo,
  onDemandPrice: number | undefined,
  spot: Record<string, number> | undefined,
): WindowsPrices | undefined {
  if (info.arch !== 'amd64' || onDemandPrice === undefined) return undefined;
  const spotPrice: Record<string, number> = {};
  for (const zone of info.zones) {
    const p = spot?.[zone];
    if (p !== undefined) spotPrice[zone] = p;
  }
  return { onDemandPrice, spotPrice };
}

export interface RefreshOptions {
  region: string;
  ec2: EC2Client;
  /** A client in a Pricing API region (us-east-1 serves every region's prices). */
  pricing: PricingClient;
  progress?: Progress;
  now?: Date;
  /** A catalog to take branch ENIs and network bandwidth from (neither is in DescribeInstanceTypes). */
  known?: Catalog;
}

/** Queries the account and returns a catalog; types without an on-demand price or a zone are left out. */
export async function refreshCatalog(opts: RefreshOptions): Promise<Catalog> {
  const progress = opts.progress ?? silent;
  const now = opts.now ?? new Date();
  progress(`refreshing the catalog for ${opts.region}`);
  const zones = await describeZones(opts.ec2, opts.region);
  progress(`DescribeAvailabilityZones: ${zones.map((z) => `${z.name}=${z.id}`).join(', ')}`);
  const zoneNames = new Set(zones.map((z) => z.name));
  const descriptions = await describeInstanceTypes(opts.ec2, progress);
  const offerings = await describeOfferings(opts.ec2, progress);
  const prices = await onDemandPrices(opts.pricing, opts.region, progress);
  const spot = await spotPrices(opts.ec2, now, progress);
  const windowsPrices = await onDemandPrices(opts.pricing, opts.region, progress, 'Windows');
  const windowsSpot = await spotPrices(opts.ec2, now, progress, 'Windows');
  const known = new Map((opts.known?.types ?? []).map((t) => [t.name, t]));
  const types: InstanceTypeInfo[] = [];
  const skipped = { price: 0, zones: 0, shape: 0 };
  for (const desc of descriptions) {
    const name = desc.InstanceType ?? '';
    const onDemandPrice = prices.get(name);
    if (onDemandPrice === undefined) {
      skipped.price++;
      continue;
    }
    const offered = [...(offerings.get(name) ?? [])].filter((z) => zoneNames.has(z)).sort();
    if (offered.length === 0) {
      skipped.zones++;
      continue;
    }
    const spotPrice: Record<string, number> = {};
    for (const zone of offered) {
      const p = spot.get(name)?.[zone];
      if (p !== undefined) spotPrice[zone] = p;
    }
    const base = known.get(name);
    const info = toInstanceTypeInfo(desc, {
      zones: offered,
      onDemandPrice,
      spotPrice,
      ...(base?.branchEnis !== undefined ? { branchEnis: base.branchEnis } : {}),
      ...(base?.networkBandwidthMbps !== undefined ? { networkBandwidthMbps: base.networkBandwidthMbps } : {}),
    });
    if (!info) {
      skipped.shape++;
      continue;
    }
    const windows = windowsPricesOf(info, windowsPrices.get(name), windowsSpot.get(name));
    if (windows) info.windows = windows;
    types.push(info);
  }
  types.sort(
    (a, b) =>
      a.family.localeCompare(b.family) || a.vcpu - b.vcpu || a.memoryMiB - b.memoryMiB || a.size.localeCompare(b.size),
  );
  progress(
    `built ${types.length} instance types; left out ${skipped.price} without a Linux on-demand price, ` +
      `${skipped.zones} offered in no zone, ${skipped.shape} with unusable facts; ` +
      `${types.filter((t) => t.windows).length} priced for Windows`,
  );
  return {
    region: opts.region,
    zones,
    generatedAt: now.toISOString(),
    source:
      `karpless catalog refresh for ${opts.region} at ${now.toISOString()}: DescribeInstanceTypes, ` +
      'DescribeInstanceTypeOfferings, Pricing GetProducts (Linux, and Windows License Included; shared tenancy) and ' +
      'DescribeSpotPriceHistory (Linux/UNIX and Windows, latest per zone). Branch ENIs and network bandwidth from the embedded snapshot where known.',
    types,
  };
}
