// Builds the embedded us-east-1 snapshot (shared/catalog/data/us-east-1.json) from the checked-in source tables
// (sources/*.tsv, taken from Karpenter's published data by extract.ts) and the derived zones and spot prices.
// Run: npx tsx shared/catalog/build/generate.ts [--check]. docs/catalog.md, "Sources".
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serializeCatalog } from '../serialize';
import type { Catalog, InstanceTypeInfo } from '../types';
import { factsOf } from './facts';
import { spotPrices, ZONES, zonesFor } from './offers';
import { readLimits, readPrices, readReference, tableOrigin } from './source-tables';
import { windowsPrices } from './windows';

export { ZONES } from './offers';

export const REGION = 'us-east-1';

/** The price table's own date ("generated at" in its header): the date of the snapshot's prices. */
export function snapshotDate(): string {
  const stamp = /generated (\S+)$/.exec(tableOrigin('prices.tsv')[0] ?? '');
  if (!stamp) throw new Error('sources/prices.tsv: no "generated" date in its header');
  return stamp[1] as string;
}

export function source(): string {
  const [reference] = tableOrigin('reference-us-east-1.tsv');
  return (
    `karpless embedded snapshot, ${REGION}, built by shared/catalog/build/generate.ts from ${reference} ` +
    '(labels, vCPU, memory, GPUs, accelerators, local NVMe, bandwidth, EFA), its pricing/zz_generated.pricing_aws.go ' +
    '(Linux on-demand prices) and instancetype/zz_generated.vpclimits.go (ENIs, IPv4 per ENI, branch ENIs). ' +
    'Estimated: spot prices (family-typical discount with seeded per-zone variation), Windows prices (the Linux ' +
    'price plus the License Included Windows Server fee of $0.046 per vCPU-hour, x86 types only), which zones offer ' +
    'each type, and the zone-name to zone-id mapping (account-specific in reality). ' +
    'Run `karpless catalog refresh` for live data.'
  );
}

/** Types of Karpenter's reference that have a price and VPC limits; the rest are named by `left`. */
export function buildTypes(): { types: InstanceTypeInfo[]; left: { name: string; why: string }[] } {
  const prices = readPrices().get(REGION);
  if (!prices) throw new Error(`sources/prices.tsv: no ${REGION} prices`);
  const limits = readLimits();
  const types: InstanceTypeInfo[] = [];
  const left: { name: string; why: string }[] = [];
  for (const ref of readReference()) {
    const onDemandPrice = prices.get(ref.name);
    const limit = limits.get(ref.name);
    if (onDemandPrice === undefined) left.push({ name: ref.name, why: `no ${REGION} on-demand price` });
    else if (!limit) left.push({ name: ref.name, why: 'no VPC limits' });
    if (onDemandPrice === undefined || !limit) continue;
    const facts = factsOf(ref, limit);
    const zones = zonesFor(facts);
    const info: InstanceTypeInfo = {
      ...facts,
      onDemandPrice,
      spotPrice: spotPrices(facts, onDemandPrice, zones),
      zones,
    };
    const windows = windowsPrices(info);
    if (windows) info.windows = windows;
    types.push(info);
  }
  // Family by name, then sizes smallest first with metal after its same-sized virtual type.
  types.sort(
    (a, b) =>
      a.family.localeCompare(b.family) ||
      a.vcpu - b.vcpu ||
      a.memoryMiB - b.memoryMiB ||
      Number(a.bareMetal) - Number(b.bareMetal) ||
      a.size.localeCompare(b.size),
  );
  return { types, left };
}

export function buildCatalog(): Catalog {
  return {
    region: REGION,
    zones: ZONES,
    generatedAt: snapshotDate(),
    source: source(),
    estimatedPrices: { spot: true, windows: true },
    types: buildTypes().types,
  };
}

const OUT = fileURLToPath(new URL('../data/us-east-1.json', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = serializeCatalog(buildCatalog());
  if (process.argv.includes('--check')) {
    const same = readFileSync(OUT, 'utf8') === text;
    process.stdout.write(same ? 'snapshot is up to date\n' : 'snapshot differs from the generator\n');
    process.exitCode = same ? 0 : 1;
  } else {
    writeFileSync(OUT, text);
    const { types, left } = buildTypes();
    const families = new Set(types.map((t) => t.family)).size;
    process.stdout.write(`wrote ${OUT}: ${types.length} instance types in ${families} families\n`);
    for (const { name, why } of left) process.stdout.write(`  left out ${name}: ${why}\n`);
  }
}
