// Builds the embedded us-east-1 snapshot (shared/catalog/data/us-east-1.json) from the family table.
// Run: npx tsx shared/catalog/build/generate.ts [--check]
// Real figures come from public data (see docs/catalog.md); spot prices and zone gaps are derived, deterministically.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseInstanceTypeName } from '../names';
import { serializeCatalog } from '../serialize';
import type { Catalog, InstanceTypeInfo } from '../types';
import { ebsAttachmentsOf } from './ebs-attachments';
import { FAMILIES, type FamilySpec } from './families';
import { BANDWIDTH, EBS, ENI, type Ladder, NVME, VCPU } from './ladders';
import { windowsPrices } from './windows';

export const SNAPSHOT_DATE = '2026-01-19T13:23:24Z';

export const ZONES = [
  { name: 'us-east-1a', id: 'use1-az4' },
  { name: 'us-east-1b', id: 'use1-az6' },
  { name: 'us-east-1c', id: 'use1-az1' },
  { name: 'us-east-1d', id: 'use1-az2' },
  { name: 'us-east-1e', id: 'use1-az3' },
  { name: 'us-east-1f', id: 'use1-az5' },
];

export const SOURCE =
  'karpless embedded snapshot, us-east-1, built by shared/catalog/build/generate.ts. ' +
  'Real: Linux on-demand prices (Karpenter zz_generated.pricing_aws.go, generated 2026-01-19); ENIs, IPv4 per ENI and ' +
  'branch ENIs (amazon-vpc-cni-k8s misc/eni-max-pods.txt); network bandwidth (Karpenter zz_generated.bandwidth.go); ' +
  'vCPU, memory, GPU, accelerator and local storage (EC2 instance type specifications); EBS attachment limits ' +
  '(DescribeInstanceTypes EbsInfo, via the aws-ebs-csi-driver volume limits table). ' +
  'Derived: spot prices (family-typical discount with seeded per-zone variation), Windows prices (the Linux price plus ' +
  'the License Included Windows Server fee of $0.046 per vCPU-hour, x86 types only), which zones offer each type, ' +
  'EBS bandwidth and sustained clock (approximate ladders), and the zone-name to zone-id mapping (account-specific in ' +
  'reality). Run `karpless catalog refresh` for live data.';

/** Zones (by id) for families that AWS offers in only part of the region. */
const ZONE_IDS_BY_FAMILY: Record<string, string[]> = {
  p5: ['use1-az4', 'use1-az6'],
  p4d: ['use1-az2', 'use1-az4', 'use1-az6'],
  p3: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  g6e: ['use1-az1', 'use1-az4', 'use1-az6'],
  inf1: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  trn1: ['use1-az1', 'use1-az4', 'use1-az6'],
  inf2: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  x2idn: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  x2iedn: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  r7iz: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
};
/** use1-az3 is the constrained zone: it offers only older x86 families. */
const OLD_ZONE_ID = 'use1-az3';
const OLD_ZONE_FAMILIES = new Set([
  'm5',
  'm5a',
  'm5d',
  'c5',
  'c5a',
  'c5d',
  'c5n',
  'r5',
  'r5a',
  'r5d',
  't3',
  't3a',
  'i3',
]);

/** FNV-1a, mapped to [0, 1): a stable per-key draw, so the snapshot is identical on every run. */
export function draw(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

function aligned(spec: FamilySpec, list: string, what: string): string[] {
  const sizes = spec.sizes.split(' ');
  const values = list.split(' ');
  if (values.length !== sizes.length) {
    throw new Error(`${spec.family}: ${what} has ${values.length} entries for ${sizes.length} sizes`);
  }
  return values;
}

/** A ladder name or an aligned list, resolved for one size; metal falls back to the largest sized value. */
function pick(spec: FamilySpec, ladders: Record<string, Ladder>, ref: string, size: string, what: string): number {
  const ladder = ladders[ref];
  if (!ladder) {
    const values = aligned(spec, ref, what);
    return Number(values[spec.sizes.split(' ').indexOf(size)]);
  }
  const direct = ladder[size];
  if (direct !== undefined) return direct;
  if (size.startsWith('metal')) {
    const sized = spec.sizes.split(' ').filter((s) => !s.startsWith('metal'));
    const largest = sized[sized.length - 1];
    const v = largest === undefined ? undefined : ladder[largest];
    if (v !== undefined) return v;
  }
  throw new Error(`${spec.family}.${size}: no ${what} in ladder ${ref}`);
}

function vcpuOf(spec: FamilySpec, size: string): number {
  if (spec.family.startsWith('t') && ['nano', 'micro', 'small', 'medium'].includes(size)) return 2;
  if (size === 'metal') {
    if (!spec.metalVcpu) throw new Error(`${spec.family}: metal needs metalVcpu`);
    return spec.metalVcpu;
  }
  const v = VCPU[size];
  if (v === undefined) throw new Error(`${spec.family}.${size}: unknown size`);
  return v;
}

function eniOf(spec: FamilySpec, size: string): { maxEnis: number; ipv4PerEni: number; branchEnis: number } {
  const ladder = ENI[spec.eni];
  const triple =
    spec.eniOverride?.[size] ??
    (ladder ? ladder[size] : aligned(spec, spec.eni, 'eni')[spec.sizes.split(' ').indexOf(size)]);
  if (!triple) throw new Error(`${spec.family}.${size}: no ENI figures`);
  const [a, b, branch] = triple.split('/').map(Number) as [number, number, number];
  const ipv4PerEni = a - b + 1;
  const maxEnis = (a - 2) / (ipv4PerEni - 1);
  if (!Number.isInteger(maxEnis)) throw new Error(`${spec.family}.${size}: ${triple} does not decompose`);
  return { maxEnis, ipv4PerEni, branchEnis: branch };
}

function defaultEbs(spec: FamilySpec, generation: number): string {
  if (spec.ebs) return spec.ebs;
  if (spec.cpu === 'aws') return generation >= 7 ? 'gen6' : 'graviton2';
  return generation >= 6 ? 'gen6' : 'gen5';
}

function parseFamily(family: string): { category: string; generation: number } {
  const parsed = parseInstanceTypeName(`${family}.x`);
  if (!parsed) throw new Error(`cannot parse family ${family}`);
  return parsed;
}

function spotDiscount(spec: FamilySpec, category: string, generation: number, bareMetal: boolean): number {
  let d = 0.62;
  if (category === 't') d = 0.68;
  else if (['i', 'im', 'is', 'd'].includes(category)) d = 0.7;
  else if (['x', 'z'].includes(category)) d = 0.68;
  else if (category === 'p') d = 0.45;
  else if (category === 'inf') d = 0.72;
  else if (category === 'trn') d = 0.7;
  else if (spec.family === 'g6e') d = 0.55;
  else if (spec.flex) d = 0.6;
  else if (generation >= 8) d = 0.5;
  else if (generation >= 7) d = 0.55;
  if (/\d[a-z]*n[a-z]*$/.test(spec.family) && category !== 'inf' && generation <= 6) d = 0.66;
  return bareMetal ? d - 0.05 : d;
}

function zonesFor(spec: FamilySpec, name: string, vcpu: number, bareMetal: boolean, generation: number): string[] {
  const pinned = ZONE_IDS_BY_FAMILY[spec.family];
  let zones = ZONES.filter((z) => (pinned ? pinned.includes(z.id) : z.id !== OLD_ZONE_ID));
  if (!pinned && OLD_ZONE_FAMILIES.has(spec.family) && !bareMetal) zones = ZONES.slice();
  if (!pinned && generation >= 8) zones = zones.filter((z) => z.id !== 'use1-az5');
  if (!pinned && (bareMetal || vcpu >= 96)) {
    const kept = zones.filter((z) => draw(`${name}|${z.name}|zone`) >= 0.25);
    zones = kept.length >= 2 ? kept : zones.slice(0, 2);
  }
  return zones.map((z) => z.name);
}

function spotPrices(
  name: string,
  onDemand: number,
  discount: number,
  zones: string[],
  risky: boolean,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const zone of zones) {
    if (risky && draw(`${name}|${zone}|nospot`) < 0.2) continue;
    const swing = 1 + 0.25 * (draw(`${name}|${zone}|spot`) - 0.5);
    const price = Math.min(onDemand * 0.9, onDemand * (1 - discount) * swing);
    out[zone] = Math.max(0.0001, Math.round(price * 10000) / 10000);
  }
  return out;
}

export function buildTypes(): InstanceTypeInfo[] {
  const types: InstanceTypeInfo[] = [];
  for (const spec of FAMILIES) {
    const { category, generation } = parseFamily(spec.family);
    const sizes = spec.sizes.split(' ');
    const prices = aligned(spec, spec.od, 'od').map(Number);
    const mems = spec.mem ? aligned(spec, spec.mem, 'mem').map(Number) : undefined;
    sizes.forEach((size, i) => {
      const name = `${spec.family}.${size}`;
      const vcpu = vcpuOf(spec, size);
      const memGiB = mems ? (mems[i] as number) : vcpu * (spec.ratio ?? 0);
      if (!memGiB) throw new Error(`${name}: no memory`);
      const bareMetal = size.startsWith('metal');
      const onDemandPrice = prices[i] as number;
      const eni = eniOf(spec, size);
      const zones = zonesFor(spec, name, vcpu, bareMetal, generation);
      const risky = category === 'p' || bareMetal || vcpu >= 96;
      const info: InstanceTypeInfo = {
        name,
        family: spec.family,
        category,
        generation,
        size,
        vcpu,
        memoryMiB: Math.round(memGiB * 1024),
        arch: spec.arch,
        cpuManufacturer: spec.cpu,
        cpuClockMhz: spec.clock,
        maxEnis: eni.maxEnis,
        ipv4PerEni: eni.ipv4PerEni,
        branchEnis: eni.branchEnis,
        networkBandwidthMbps: pick(spec, BANDWIDTH, spec.bw, size, 'bandwidth'),
        ebsBandwidthMbps: pick(spec, EBS, defaultEbs(spec, generation), size, 'ebs'),
        hypervisor: bareMetal ? '' : spec.xen ? 'xen' : 'nitro',
        ...ebsAttachmentFields(spec.family, size),
        bareMetal,
        encryptionInTransit: spec.encryptionInTransit,
        currentGeneration: true,
        onDemandPrice,
        spotPrice: spotPrices(name, onDemandPrice, spotDiscount(spec, category, generation, bareMetal), zones, risky),
        zones,
      };
      if (spec.gpu) {
        const count = Number(aligned(spec, spec.gpu.counts, 'gpu')[i]);
        info.gpu = { count, name: spec.gpu.name, manufacturer: spec.gpu.manufacturer, memoryMiB: spec.gpu.memoryMiB };
      }
      if (spec.accelerator) {
        const count = Number(aligned(spec, spec.accelerator.counts, 'accelerator')[i]);
        info.accelerator = {
          count,
          name: spec.accelerator.name,
          manufacturer: 'aws',
          cores: count * spec.accelerator.coresPerDevice,
        };
      }
      if (spec.efa) {
        const efa = Number(aligned(spec, spec.efa, 'efa')[i]);
        if (efa > 0) info.efa = efa;
      }
      if (spec.nvme) info.localNvmeGiB = pick(spec, NVME, spec.nvme, size, 'nvme');
      if (spec.flex) info.capabilityFlex = true;
      const windows = windowsPrices(info);
      if (windows) info.windows = windows;
      types.push(info);
    });
  }
  // Family by name, then sizes smallest first with metal after its same-sized virtual type.
  return types.sort(
    (a, b) =>
      a.family.localeCompare(b.family) ||
      a.vcpu - b.vcpu ||
      a.memoryMiB - b.memoryMiB ||
      Number(a.bareMetal) - Number(b.bareMetal) ||
      a.size.localeCompare(b.size),
  );
}

function ebsAttachmentFields(
  family: string,
  size: string,
): Pick<InstanceTypeInfo, 'maxEbsAttachments' | 'ebsAttachmentLimitType'> {
  const { count, type } = ebsAttachmentsOf(family, size);
  return { maxEbsAttachments: count, ebsAttachmentLimitType: type };
}

export function buildCatalog(): Catalog {
  return { region: 'us-east-1', zones: ZONES, generatedAt: SNAPSHOT_DATE, source: SOURCE, types: buildTypes() };
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
    const count = JSON.parse(text).types.length;
    process.stdout.write(`wrote ${OUT}: ${count} instance types in ${FAMILIES.length} families\n`);
  }
}
