// `karpless catalog`: the instance types the engine chooses from, with capacity, allocatable and prices as one
// EC2NodeClass sees them. `karpless catalog refresh` rebuilds a catalog file from the user's AWS account.
import { writeFileSync } from 'node:fs';
import { loadManifests } from '../../shared/api';
import type { EC2NodeClass } from '../../shared/api/karpenter';
import { formatResourceList } from '../../shared/api/resources';
import {
  type Catalog,
  cheapestPrice,
  type InstanceType,
  instanceTypesFor,
  serializeCatalog,
} from '../../shared/catalog';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import { awsProblem } from './aws-problem';
import { resolveCatalog } from './catalog-option';
import type { CommandContext } from './index';

export interface CatalogListOptions {
  output: string;
  catalog?: string;
  family?: string[];
  category?: string[];
  arch?: string;
  accelerated?: boolean;
  nodeClass?: string;
}

export interface CatalogRefreshOptions {
  region: string;
  out?: string;
  catalog?: string;
}

const _list = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

function usage(ctx: CommandContext, message: string): void {
  ctx.io.err(message);
  ctx.result.code = EXIT_USAGE;
}

async function nodeClassFrom(ctx: CommandContext, file: string): Promise<EC2NodeClass | undefined> {
  const set = await loadManifests([file]);
  const [first, ...rest] = set.nodeClasses;
  if (!first) {
    usage(ctx, `${file}: no EC2NodeClass found`);
    return undefined;
  }
  if (rest.length)
    ctx.io.err(`warning: ${file} has ${set.nodeClasses.length} EC2NodeClasses; using ${first.metadata.name}`);
  return first;
}

function unknownValues(values: string[] | undefined, known: Set<string>): string[] {
  return (values ?? []).filter((v) => !known.has(v));
}

function select(types: InstanceType[], opts: CatalogListOptions): InstanceType[] {
  const families = opts.family?.length ? new Set(opts.family) : undefined;
  const categories = opts.category?.length ? new Set(opts.category) : undefined;
  return types.filter(
    (t) =>
      (!families || families.has(t.info.family)) &&
      (!categories || categories.has(t.info.category)) &&
      (!opts.arch || t.info.arch === opts.arch) &&
      (!opts.accelerated || (t.info.gpu?.count ?? 0) > 0 || (t.info.accelerator?.count ?? 0) > 0),
  );
}

export function catalogJson(catalog: Catalog, types: InstanceType[], nodeClass?: EC2NodeClass) {
  return {
    region: catalog.region,
    generatedAt: catalog.generatedAt,
    source: catalog.source,
    ...(catalog.estimatedPrices ? { estimatedPrices: catalog.estimatedPrices } : {}),
    zones: catalog.zones,
    nodeClass: nodeClass?.metadata.name ?? null,
    count: types.length,
    instanceTypes: types.map((t) => ({
      name: t.name,
      family: t.info.family,
      category: t.info.category,
      generation: t.info.generation,
      size: t.info.size,
      arch: t.info.arch,
      vcpu: t.info.vcpu,
      memoryMiB: t.info.memoryMiB,
      ...(t.info.gpu ? { gpu: t.info.gpu } : {}),
      ...(t.info.accelerator ? { accelerator: t.info.accelerator } : {}),
      capacity: formatResourceList(t.capacity),
      allocatable: formatResourceList(t.allocatable),
      overhead: {
        kubeReserved: formatResourceList(t.overhead.kubeReserved),
        systemReserved: formatResourceList(t.overhead.systemReserved),
        evictionThreshold: formatResourceList(t.overhead.evictionThreshold),
      },
      labels: t.labels,
      onDemandPrice: t.info.onDemandPrice,
      cheapestSpotPrice: cheapestPrice(t.offerings, 'spot') ?? null,
      spotPriceSource: spotSource(t),
      zones: t.info.zones,
      offerings: t.offerings,
    })),
  };
}

const price = (p: number | undefined) => (p === undefined ? '-' : p.toFixed(4));

/** `estimate` when the catalog derived the type's spot prices; null without spot offerings. */
function spotSource(t: InstanceType): 'estimate' | 'catalog' | null {
  const spot = t.offerings.filter((o) => o.capacityType === 'spot');
  if (spot.length === 0) return null;
  return spot.some((o) => o.priceSource === 'estimate') ? 'estimate' : 'catalog';
}

/** The cheapest spot price, `~`-prefixed when estimated (docs/catalog.md, "Spot prices are estimates"). */
const spotCell = (t: InstanceType) => {
  const p = cheapestPrice(t.offerings, 'spot');
  return p === undefined ? '-' : `${spotSource(t) === 'estimate' ? '~' : ''}${p.toFixed(4)}`;
};
const gib = (mib: number) => `${Number((mib / 1024).toFixed(2))}Gi`;

function accelerators(t: InstanceType): string {
  if (t.info.gpu?.count) return `${t.info.gpu.count}x ${t.info.gpu.name}`;
  if (t.info.accelerator?.count) return `${t.info.accelerator.count}x ${t.info.accelerator.name}`;
  return '-';
}

export function renderCatalogTable(catalog: Catalog, types: InstanceType[], nodeClass?: EC2NodeClass): string {
  const header = [
    'NAME',
    'ARCH',
    'VCPU',
    'MEMORY',
    'PODS',
    'ALLOC CPU',
    'ALLOC MEM',
    'ACCEL',
    'OD $/H',
    'SPOT $/H',
    'ZONES',
  ];
  const rows = types.map((t) => {
    const alloc = formatResourceList(t.allocatable);
    const zones = t.info.zones.map((z) => (z.startsWith(catalog.region) ? z.slice(catalog.region.length) : z));
    return [
      t.name,
      t.info.arch,
      String(t.info.vcpu),
      gib(t.info.memoryMiB),
      String(t.capacity.pods ?? 0),
      alloc.cpu ?? '0',
      alloc.memory ?? '0',
      accelerators(t),
      price(t.info.onDemandPrice),
      spotCell(t),
      zones.join(''),
    ];
  });
  const numeric = new Set([2, 3, 4, 5, 6, 8, 9]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  const families = new Set(types.map((t) => t.info.family)).size;
  const where = nodeClass ? `EC2NodeClass ${nodeClass.metadata.name}` : 'default kubelet settings';
  const date = catalog.generatedAt ? `, data as of ${catalog.generatedAt.slice(0, 10)}` : '';
  return [
    line(header),
    ...rows.map(line),
    '',
    ...(catalog.estimatedPrices?.spot
      ? ['~ marks estimated spot prices: this catalog derives them (docs/catalog.md, "Spot prices are estimates").']
      : []),
    `${types.length} instance types in ${families} families; ${catalog.region} (${catalog.zones.length} zones)${date}; allocatable for ${where}.`,
  ].join('\n');
}

export async function runCatalogList(ctx: CommandContext, opts: CatalogListOptions): Promise<void> {
  if (opts.output !== 'table' && opts.output !== 'json')
    return usage(ctx, `--output: "${opts.output}" is not one of table, json`);
  if (opts.arch && opts.arch !== 'amd64' && opts.arch !== 'arm64')
    return usage(ctx, `--arch: "${opts.arch}" is not one of amd64, arm64`);
  const catalog = await resolveCatalog(opts, (line) => ctx.io.err(line));
  const badFamilies = unknownValues(opts.family, new Set(catalog.types.map((t) => t.family)));
  if (badFamilies.length)
    return usage(ctx, `--family: ${badFamilies.map((f) => `"${f}"`).join(', ')} not in the catalog`);
  const badCategories = unknownValues(opts.category, new Set(catalog.types.map((t) => t.category)));
  if (badCategories.length)
    return usage(ctx, `--category: ${badCategories.map((c) => `"${c}"`).join(', ')} not in the catalog`);
  const nodeClass = opts.nodeClass ? await nodeClassFrom(ctx, opts.nodeClass) : undefined;
  if (opts.nodeClass && !nodeClass) return;
  const types = select(instanceTypesFor(catalog, nodeClass), opts);
  if (types.length === 0) ctx.io.err('no instance types match the filters');
  ctx.io.out(
    opts.output === 'json'
      ? JSON.stringify(catalogJson(catalog, types, nodeClass), null, 2)
      : renderCatalogTable(catalog, types, nodeClass),
  );
  ctx.result.code = EXIT_OK;
}

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

export async function runCatalogRefresh(ctx: CommandContext, opts: CatalogRefreshOptions): Promise<void> {
  if (!REGION.test(opts.region))
    return usage(ctx, `--region: "${opts.region}" is not an AWS region (for example us-west-2)`);
  const known = await resolveCatalog(opts, (line) => ctx.io.err(line));
  const out = opts.out ?? `catalog-${opts.region}.json`;
  // The SDK loads only for refresh, so listing stays fast.
  const { ec2Client, pricingClient } = await import('../../shared/aws/clients');
  const { refreshCatalog } = await import('../../shared/aws/catalog-refresh');
  let catalog: Catalog;
  try {
    catalog = await refreshCatalog({
      region: opts.region,
      ec2: ec2Client({ region: opts.region, maxAttempts: 10 }),
      pricing: pricingClient({ maxAttempts: 10 }),
      progress: (m) => ctx.io.err(m),
      known,
    });
  } catch (err) {
    ctx.io.err(`karpless catalog refresh: ${awsProblem(err, { region: opts.region })}`);
    ctx.result.code = EXIT_FAILURE;
    return;
  }
  if (catalog.types.length === 0) {
    ctx.io.err(`karpless catalog refresh: no priced instance types found in ${opts.region}; nothing written`);
    ctx.result.code = EXIT_FAILURE;
    return;
  }
  writeFileSync(out, serializeCatalog(catalog));
  ctx.io.out(`wrote ${out}: ${catalog.types.length} instance types in ${catalog.zones.length} zones of ${opts.region}`);
  ctx.result.code = EXIT_OK;
}
