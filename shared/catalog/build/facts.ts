// One instance type's facts, read back from Karpenter's published labels and resources (the reference table) and its
// VPC limits. Every label the catalog carries maps to one field here, so labelsFor (../labels.ts) gives the
// reference's labels back. docs/catalog.md, "Sources".
import type { Arch, InstanceTypeInfo } from '../types';
import { ebsAttachmentsOf } from './ebs-attachments';
import type { ReferenceType, VpcLimit } from './karpenter-sources';

/** The facts of a type, before prices and zones. */
export type TypeFacts = Omit<InstanceTypeInfo, 'onDemandPrice' | 'spotPrice' | 'zones' | 'windows'>;

const L = 'karpenter.k8s.aws/instance-';

/** Families the EC2 documentation lists as previous generation ("Previous generation instances"). */
const PREVIOUS_GENERATION = new Set(['c1', 'c3', 'cr1', 'g2', 'hs1', 'i2', 'm1', 'm2', 'm3', 'r3', 't1']);

function number(ref: ReferenceType, key: string): number | undefined {
  const v = ref.labels[`${L}${key}`] ?? ref.resources[key];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${ref.name}: ${key} "${v}" is not a number`);
  return n;
}

function required(ref: ReferenceType, key: string): string {
  const v = ref.labels[`${L}${key}`];
  if (v === undefined) throw new Error(`${ref.name}: no ${L}${key} label`);
  return v;
}

function accelerators(ref: ReferenceType): Pick<TypeFacts, 'gpu' | 'accelerator'> {
  const out: Pick<TypeFacts, 'gpu' | 'accelerator'> = {};
  const gpuCount = number(ref, 'gpu-count');
  if (gpuCount !== undefined) {
    out.gpu = {
      count: gpuCount,
      name: required(ref, 'gpu-name'),
      manufacturer: required(ref, 'gpu-manufacturer'),
      memoryMiB: number(ref, 'gpu-memory') ?? 0,
    };
  }
  const acceleratorCount = number(ref, 'accelerator-count');
  if (acceleratorCount !== undefined) {
    const cores = Number(ref.resources['aws.amazon.com/neuroncore'] ?? 0);
    out.accelerator = {
      count: acceleratorCount,
      name: required(ref, 'accelerator-name'),
      manufacturer: required(ref, 'accelerator-manufacturer'),
      ...(cores > 0 ? { cores } : {}),
    };
  }
  return out;
}

export function factsOf(ref: ReferenceType, limit: VpcLimit): TypeFacts {
  const arch = ref.labels['kubernetes.io/arch'];
  if (arch !== 'amd64' && arch !== 'arm64') throw new Error(`${ref.name}: arch "${arch}" is not amd64 or arm64`);
  const family = required(ref, 'family');
  const size = required(ref, 'size');
  const hypervisor = required(ref, 'hypervisor');
  if (hypervisor !== 'nitro' && hypervisor !== 'xen' && hypervisor !== '') {
    throw new Error(`${ref.name}: hypervisor "${hypervisor}" is not nitro, xen or empty`);
  }
  const { count, type } = ebsAttachmentsOf(family, size);
  const facts: TypeFacts = {
    name: ref.name,
    family,
    category: required(ref, 'category'),
    generation: Number(required(ref, 'generation')),
    size,
    vcpu: Number(required(ref, 'cpu')),
    memoryMiB: Number(required(ref, 'memory')),
    arch: arch as Arch,
    cpuManufacturer: required(ref, 'cpu-manufacturer'),
    cpuClockMhz: number(ref, 'cpu-sustained-clock-speed-mhz'),
    ...accelerators(ref),
    maxEnis: limit.interfaces,
    ipv4PerEni: limit.ipv4PerInterface,
    branchEnis: limit.branchInterfaces,
    efa: number(ref, 'vpc.amazonaws.com/efa'),
    localNvmeGiB: number(ref, 'local-nvme'),
    networkBandwidthMbps: number(ref, 'network-bandwidth'),
    ebsBandwidthMbps: number(ref, 'ebs-bandwidth'),
    hypervisor,
    maxEbsAttachments: count,
    ebsAttachmentLimitType: type,
    bareMetal: limit.bareMetal,
    encryptionInTransit: required(ref, 'encryption-in-transit-supported') === 'true',
    currentGeneration: !PREVIOUS_GENERATION.has(family),
    capabilityFlex: required(ref, 'capability-flex') === 'true' ? true : undefined,
  };
  // Absent facts are left out of the file, not written as undefined.
  for (const key of Object.keys(facts) as (keyof TypeFacts)[]) if (facts[key] === undefined) delete facts[key];
  return facts;
}
