// Instance-type fixtures for the solver's tests and timing script: a small realistic set (m5, c5, r5, m6g in sizes
// large to 4xlarge, and g4dn GPUs, in three zones with spot and on-demand prices), and Karpenter's synthetic
// benchmark types. Allocatable follows the EKS formulas (docs/catalog.md), so m5.large has 1930m, 6903Mi, 29 pods.
import type { ResourceList } from '../shared/api/resources';
import type { Arch, InstanceType, InstanceTypeInfo, Offering } from '../shared/catalog/types';

const MIB = 2 ** 20;
const GIB = 2 ** 30;
export const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

export interface InstanceTypeOptions {
  name: string;
  vcpu: number;
  memoryMiB: number;
  capacity: ResourceList;
  /** Defaults to `capacity` (no overhead). */
  allocatable?: ResourceList;
  overhead?: InstanceType['overhead'];
  offerings: Offering[];
  /** Defaults to the instance-type label alone. */
  labels?: Record<string, string>;
  /** Info that differs from the defaults: family and size from the name, generation 5, amd64, 3 ENIs of 10 IPv4,
   * nitro, prices and zones from the offerings. */
  info?: Partial<InstanceTypeInfo>;
}

/** The one instance-type builder: every fixture set below (and `fixtureType` in sim-fixtures.ts) presets it. */
export function instanceType(o: InstanceTypeOptions): InstanceType {
  const [family = o.name, size = ''] = o.name.split('.');
  const onDemand = o.offerings.filter((x) => x.capacityType === 'on-demand');
  const spot = o.offerings.filter((x) => x.capacityType === 'spot');
  return {
    name: o.name,
    info: {
      name: o.name,
      family,
      category: family.replace(/\d.*$/, ''),
      generation: 5,
      size,
      vcpu: o.vcpu,
      memoryMiB: o.memoryMiB,
      arch: 'amd64',
      maxEnis: 3,
      ipv4PerEni: 10,
      hypervisor: 'nitro',
      bareMetal: false,
      currentGeneration: true,
      onDemandPrice: onDemand[0]?.price ?? 0,
      spotPrice: Object.fromEntries(spot.map((x) => [x.zone, x.price])),
      zones: [...new Set(o.offerings.map((x) => x.zone))],
      ...o.info,
    },
    labels: o.labels ?? { 'node.kubernetes.io/instance-type': o.name },
    capacity: o.capacity,
    overhead: o.overhead ?? { kubeReserved: {}, systemReserved: {}, evictionThreshold: {} },
    allocatable: o.allocatable ?? { ...o.capacity },
    offerings: o.offerings,
  };
}

interface Spec {
  family: string;
  size: string;
  vcpu: number;
  memoryGiB: number;
  price: number;
  arch?: Arch;
  enis: number;
  ipv4: number;
  gpu?: { count: number; name: string; memoryMiB: number };
}

const SIZES: [string, number, number, number][] = [
  // size, vcpu, enis, ipv4 per eni
  ['large', 2, 3, 10],
  ['xlarge', 4, 4, 15],
  ['2xlarge', 8, 4, 15],
  ['4xlarge', 16, 8, 30],
];

const FAMILIES: { family: string; gibPerCpu: number; largePrice: number; arch?: Arch }[] = [
  { family: 'c5', gibPerCpu: 2, largePrice: 0.085 },
  { family: 'm5', gibPerCpu: 4, largePrice: 0.096 },
  { family: 'r5', gibPerCpu: 8, largePrice: 0.126 },
  { family: 'm6g', gibPerCpu: 4, largePrice: 0.077, arch: 'arm64' },
];

/** kube-reserved CPU: 6 % of the first core, 1 % of the second, 0.5 % of cores 3–4, 0.25 % beyond. */
function reservedCpuMillis(vcpu: number): number {
  let m = 0;
  for (let c = 1; c <= vcpu; c++) m += c === 1 ? 60 : c === 2 ? 10 : c <= 4 ? 5 : 2.5;
  return m;
}

/** A type with the EKS allocatable math, for the realistic fixture set. */
function realisticType(s: Spec): InstanceType {
  const arch = s.arch ?? 'amd64';
  const maxPods = s.enis * (s.ipv4 - 1) + 2;
  const memMiB = s.memoryGiB * 1024;
  const vmOverheadMiB = Math.ceil(memMiB * 0.075) + (arch === 'arm64' ? 64 : 0);
  const kubeReservedMiB = 11 * maxPods + 255;
  const cpuReserved = reservedCpuMillis(s.vcpu);
  const name = `${s.family}.${s.size}`;
  const generation = Number(/\d+/.exec(s.family)?.[0] ?? '0');
  const category = /^[a-z]+/.exec(s.family)?.[0] ?? '';
  const offerings: Offering[] = [];
  ZONES.forEach((zone, zi) => {
    offerings.push({ zone, capacityType: 'on-demand', price: s.price, available: true });
    // Spot runs about a third of on-demand, a little different in each zone.
    offerings.push({ zone, capacityType: 'spot', price: round(s.price * (0.32 + 0.03 * zi)), available: true });
  });
  const info: Partial<InstanceTypeInfo> = {
    family: s.family,
    category,
    generation,
    arch,
    maxEnis: s.enis,
    ipv4PerEni: s.ipv4,
    onDemandPrice: s.price,
    zones: [...ZONES],
    ...(s.gpu ? { gpu: { ...s.gpu, manufacturer: 'nvidia' } } : {}),
  };
  const labels: Record<string, string> = {
    'node.kubernetes.io/instance-type': name,
    'kubernetes.io/arch': arch,
    'kubernetes.io/os': 'linux',
    'karpenter.k8s.aws/instance-category': category,
    'karpenter.k8s.aws/instance-family': s.family,
    'karpenter.k8s.aws/instance-generation': String(generation),
    'karpenter.k8s.aws/instance-size': s.size,
    'karpenter.k8s.aws/instance-cpu': String(s.vcpu),
    'karpenter.k8s.aws/instance-memory': String(memMiB),
    'karpenter.k8s.aws/instance-hypervisor': 'nitro',
  };
  const storage = 20 * GIB;
  const capacity: Record<string, number> = {
    cpu: s.vcpu * 1000,
    memory: memMiB * MIB,
    pods: maxPods,
    'ephemeral-storage': storage,
  };
  if (s.gpu) {
    labels['karpenter.k8s.aws/instance-gpu-name'] = s.gpu.name;
    labels['karpenter.k8s.aws/instance-gpu-manufacturer'] = 'nvidia';
    labels['karpenter.k8s.aws/instance-gpu-count'] = String(s.gpu.count);
    labels['karpenter.k8s.aws/instance-gpu-memory'] = String(s.gpu.memoryMiB);
    capacity['nvidia.com/gpu'] = s.gpu.count;
  }
  const kubeReserved = { cpu: cpuReserved, memory: kubeReservedMiB * MIB };
  const storageEviction = Math.ceil(storage * 0.1);
  const evictionThreshold = { memory: 100 * MIB, 'ephemeral-storage': storageEviction };
  const allocatable: Record<string, number> = {
    ...capacity,
    cpu: s.vcpu * 1000 - cpuReserved,
    memory: (memMiB - vmOverheadMiB - kubeReservedMiB - 100) * MIB,
    'ephemeral-storage': storage - GIB - storageEviction,
  };
  return instanceType({
    name,
    vcpu: s.vcpu,
    memoryMiB: memMiB,
    info,
    labels,
    capacity,
    overhead: { kubeReserved, systemReserved: {}, evictionThreshold },
    allocatable,
    offerings,
  });
}

/** m5, c5, r5 and m6g in sizes large…4xlarge, plus g4dn.xlarge and g4dn.2xlarge. */
export function fixtureInstanceTypes(): InstanceType[] {
  const out: InstanceType[] = [];
  for (const f of FAMILIES) {
    for (const [size, vcpu, enis, ipv4] of SIZES) {
      const mult = vcpu / 2;
      out.push(
        realisticType({
          family: f.family,
          size,
          vcpu,
          memoryGiB: vcpu * f.gibPerCpu,
          price: round(f.largePrice * mult),
          enis,
          ipv4,
          ...(f.arch ? { arch: f.arch } : {}),
        }),
      );
    }
  }
  const t4 = { count: 1, name: 't4', memoryMiB: 16384 };
  out.push(
    realisticType({
      family: 'g4dn',
      size: 'xlarge',
      vcpu: 4,
      memoryGiB: 16,
      price: 0.526,
      enis: 3,
      ipv4: 10,
      gpu: t4,
    }),
  );
  out.push(
    realisticType({
      family: 'g4dn',
      size: '2xlarge',
      vcpu: 8,
      memoryGiB: 32,
      price: 0.752,
      enis: 3,
      ipv4: 10,
      gpu: t4,
    }),
  );
  return out;
}

/** Karpenter's fake pricing: $0.025 per vCPU and $0.001 per GB of memory. */
export function priceFromResources(cpuCores: number, memoryBytes: number): number {
  return 0.025 * cpuCores + (0.001 * memoryBytes) / 1e9;
}

/**
 * Karpenter's scheduling-benchmark types: type i has i+1 vCPU, 2(i+1) GiB and 10(i+1) pods, with five offerings
 * (on-demand in three zones, spot in two) at one price.
 */
export function syntheticInstanceTypes(count: number, price = priceFromResources): InstanceType[] {
  const out: InstanceType[] = [];
  const zones = ['test-zone-1', 'test-zone-2', 'test-zone-3'];
  for (let i = 0; i < count; i++) {
    const cpu = i + 1;
    const memory = 2 * (i + 1) * GIB;
    const p = price(cpu, memory);
    const name = `fake-it-${i}`;
    const offerings: Offering[] = [
      ...zones.map((zone) => ({ zone, capacityType: 'on-demand' as const, price: p, available: true })),
      ...zones.slice(0, 2).map((zone) => ({ zone, capacityType: 'spot' as const, price: p, available: true })),
    ];
    out.push(
      instanceType({
        name,
        vcpu: cpu,
        memoryMiB: memory / MIB,
        info: {
          family: 'fake',
          category: 'fake',
          generation: 1,
          size: String(cpu),
          maxEnis: 1,
          ipv4PerEni: 10 * (i + 1),
        },
        labels: {
          'node.kubernetes.io/instance-type': name,
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/os': 'linux',
        },
        capacity: { cpu: cpu * 1000, memory, pods: 10 * (i + 1) },
        offerings,
      }),
    );
  }
  return out;
}

function round(v: number): number {
  return Math.round(v * 10000) / 10000;
}

/**
 * One instance type with flat capacity (2 vCPU, 8 GiB) and the offerings a test names: on-demand in `zones`, spot
 * where `spot` gives a price. For tests about offerings and prices rather than packing.
 */
export function makeInstanceType(
  name: string,
  o: { arch?: Arch; onDemand?: number; spot?: Record<string, number>; zones?: string[]; pods?: number } = {},
): InstanceType {
  const zones = o.zones ?? ['us-east-1a', 'us-east-1b'];
  const onDemand = o.onDemand ?? 0.1;
  const offerings: Offering[] = [
    ...Object.entries(o.spot ?? {}).map(([zone, price]) => ({
      zone,
      capacityType: 'spot' as const,
      price,
      available: true,
    })),
    ...zones.map((zone) => ({ zone, capacityType: 'on-demand' as const, price: onDemand, available: true })),
  ];
  return instanceType({
    name,
    vcpu: 2,
    memoryMiB: 8192,
    info: {
      size: name.split('.')[1] ?? 'large',
      arch: o.arch ?? 'amd64',
      onDemandPrice: onDemand,
      spotPrice: o.spot ?? {},
      zones,
    },
    capacity: { cpu: 2000, memory: 8192 * 2 ** 20, pods: o.pods ?? 29 },
    offerings,
  });
}
