// The benchmark's workloads: Karpenter's scheduling benchmark on its synthetic instance types, the same pod mixes
// on the real catalog, and unconstrained mixes for cost against the LP lower bound.
import type { EC2NodeClass, NodePool } from '../shared/api/karpenter';
import type { Pod } from '../shared/api/kube';
import { ec2NodeClass, nodePool } from '../testkit/builders';
import { benchmarkPods, MIXED_SHAPES, type PodShape } from '../testkit/workloads';

export type CatalogKind = 'synthetic' | 'real';

export interface Workload {
  name: string;
  description: string;
  catalog: CatalogKind;
  pods: number;
  shapes: readonly PodShape[];
  /** Targets this workload is checked against. */
  targets: {
    minPodsPerSecond?: number;
    maxWallMs?: number;
    maxRssBytes: number;
    maxCostRatio?: number;
  };
}

export const GiB = 2 ** 30;
export const WORKLOAD_SEED = 42;
const RSS = GiB;

const mixed = (catalog: CatalogKind, pods: number, label: string): Workload => ({
  name: `${catalog === 'synthetic' ? 'karpenter' : 'catalog'}-mixed-${label}`,
  description:
    catalog === 'synthetic'
      ? `Karpenter's benchmark: ${pods} mixed pods on 400 synthetic types`
      : `${pods} mixed pods on the us-east-1 catalog (default NodePool)`,
  catalog,
  pods,
  shapes: MIXED_SHAPES,
  targets: {
    maxRssBytes: RSS,
    ...(pods === 5000 ? { minPodsPerSecond: 2500 } : {}),
    ...(pods === 20000 ? { maxWallMs: 8000 } : {}),
  },
});

const unconstrained = (pods: number, label: string): Workload => ({
  name: `unconstrained-${label}`,
  description: `${pods} unconstrained pods on the us-east-1 catalog, cost against the LP lower bound`,
  catalog: 'real',
  pods,
  shapes: ['generic'],
  targets: { maxRssBytes: RSS, maxCostRatio: 1.05 },
});

export const WORKLOADS: readonly Workload[] = [
  mixed('synthetic', 1000, '1k'),
  mixed('synthetic', 5000, '5k'),
  mixed('synthetic', 20000, '20k'),
  mixed('real', 1000, '1k'),
  mixed('real', 5000, '5k'),
  mixed('real', 20000, '20k'),
  unconstrained(1000, '1k'),
  unconstrained(10000, '10k'),
];

export function findWorkload(name: string): Workload | undefined {
  return WORKLOADS.find((w) => w.name === name);
}

export function workloadPods(workload: Workload, seed = WORKLOAD_SEED): Pod[] {
  return benchmarkPods(workload.pods, seed, workload.shapes);
}

/** A NodePool without requirements, as Karpenter's benchmark uses, over the synthetic types. */
export function benchNodePool(name = 'bench'): { nodePool: NodePool; nodeClass: EC2NodeClass } {
  return {
    nodePool: nodePool({ name, nodeClass: name }),
    nodeClass: ec2NodeClass({ role: undefined }, name, 'bench'),
  };
}
