// The instance types of Karpenter's scheduling benchmark, built the way its fake cloud provider's `InstanceTypes(n)`
// builds them: type i has i+1 vCPU, 2(i+1) GiB and 10(i+1) pods, five offerings (spot in two zones, on-demand in
// three) all at one price, 0.1 $/vCPU plus 0.1 $/GB, and a kube-reserved overhead of 100m cpu and 10Mi memory, so
// allocatable is capacity minus that. Not carried over: the fake types also allow windows and darwin and label a size
// (small/large) and their cpu count; no pod in the benchmark selects on them.
import { LabelArch, LabelInstanceType, LabelOS } from '../shared/api/labels';
import type { InstanceType, Offering } from '../shared/catalog/types';

export const SYNTHETIC_ZONES = ['test-zone-1', 'test-zone-2', 'test-zone-3'] as const;
const GiB = 2 ** 30;
const MiB = 2 ** 20;
/** The fake types' kube-reserved overhead. */
export const SYNTHETIC_KUBE_RESERVED = { cpu: 100, memory: 10 * MiB } as const;

export function syntheticPrice(vcpu: number, memoryBytes: number): number {
  return 0.1 * vcpu + (0.1 * memoryBytes) / 1e9;
}

export function syntheticInstanceTypes(count = 400): InstanceType[] {
  const types: InstanceType[] = [];
  for (let i = 0; i < count; i++) {
    const vcpu = i + 1;
    const memory = 2 * vcpu * GiB;
    const pods = 10 * vcpu;
    const price = syntheticPrice(vcpu, memory);
    const name = `fake-it-${i}`;
    const offerings: Offering[] = [
      { zone: 'test-zone-1', capacityType: 'spot', price, available: true },
      { zone: 'test-zone-2', capacityType: 'spot', price, available: true },
      ...SYNTHETIC_ZONES.map((zone) => ({ zone, capacityType: 'on-demand' as const, price, available: true })),
    ];
    const resources = { cpu: vcpu * 1000, memory, pods };
    types.push({
      name,
      info: {
        name,
        family: 'fake-it',
        category: 'fake',
        generation: 1,
        size: String(i),
        vcpu,
        memoryMiB: memory / 2 ** 20,
        arch: 'amd64',
        maxEnis: 1,
        ipv4PerEni: pods + 1,
        hypervisor: 'nitro',
        bareMetal: false,
        currentGeneration: true,
        onDemandPrice: price,
        spotPrice: { 'test-zone-1': price, 'test-zone-2': price },
        zones: [...SYNTHETIC_ZONES],
      },
      labels: { [LabelInstanceType]: name, [LabelArch]: 'amd64', [LabelOS]: 'linux' },
      capacity: { ...resources },
      overhead: { kubeReserved: { ...SYNTHETIC_KUBE_RESERVED }, systemReserved: {}, evictionThreshold: {} },
      allocatable: {
        cpu: resources.cpu - SYNTHETIC_KUBE_RESERVED.cpu,
        memory: resources.memory - SYNTHETIC_KUBE_RESERVED.memory,
        pods,
      },
      offerings,
    });
  }
  return types;
}
