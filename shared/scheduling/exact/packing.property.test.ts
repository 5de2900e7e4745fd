// Small batches are packed within 5 % of the exact optimum and never above Karpenter's first-fit-decreasing. The
// optimum and FFD are computed by testkit/packing-reference.ts, apart from the engine; the batches are random
// (whole-cpu, mixed and memory-heavy pods on NodePools restricted by category, generation and arch).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { pods } from '../../../testkit/builders';
import {
  batchObjects,
  firstFitDecreasingCost,
  optimumCost,
  referenceTypes,
  type SmallBatch,
  smallBatch,
} from '../../../testkit/packing-reference';
import { defaultNodePool } from '../../api/default-nodepool';
import { instanceTypesFor, loadCatalog } from '../../catalog';
import type { InstanceType } from '../../catalog/types';
import { loadLpSolver, solve } from '../index';
import type { SchedulingResult } from '../types';

let catalog: InstanceType[];

beforeAll(async () => {
  await loadLpSolver();
  catalog = instanceTypesFor(await loadCatalog(), defaultNodePool().nodeClass);
});

function plan(batch: SmallBatch): SchedulingResult {
  const { pool, pods, daemonSets } = batchObjects(batch);
  // A generous budget: the test judges the plan, not the machine's load (speed is the benchmark's business).
  return solve({
    pods,
    nodePools: [pool],
    instanceTypes: new Map([[pool.metadata.name, catalog]]),
    daemonSets,
    options: { exactPackingMs: 5000 },
  });
}

const cost = (r: SchedulingResult) => r.nodeClaims.reduce((s, c) => s + c.cheapest.price, 0);

describe('small batches', () => {
  it('cost at most 1.05 × the exact optimum and never more than first-fit-decreasing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const batch = smallBatch(seed);
        const types = referenceTypes(catalog, batch);
        const optimum = optimumCost(batch.shapes, types);
        const ffd = firstFitDecreasingCost(batch.shapes, types);
        fc.pre(Number.isFinite(optimum));
        const r = plan(batch);
        expect(r.unschedulable, batch.label).toEqual([]);
        const c = cost(r);
        expect(c, `${batch.label}: plan ${c} vs optimum ${optimum}`).toBeLessThanOrEqual(optimum * 1.05 + 1e-9);
        expect(c, `${batch.label}: plan ${c} vs FFD ${ffd}`).toBeLessThanOrEqual(ffd + 1e-9);
      }),
      { numRuns: 40, seed: 13 },
    );
  }, 600_000);

  it('says whether the packing is proven optimal', () => {
    const batch: SmallBatch = {
      label: '3 × cpu:1 on c amd64',
      arch: 'amd64',
      categories: ['c'],
      generationAbove: 2,
      shapes: [{ cpu: 1000, memory: 0, count: 3 }],
    };
    const r = plan(batch);
    expect(r.stats.packing).toMatchObject({ newPods: 3, exactPods: 3, provenOptimal: true });
    expect(r.stats.packing?.boundPerHour).toBeCloseTo(cost(r), 9);
  });
});

describe("Karpenter's getting-started NodePool (c, amd64, on-demand)", () => {
  const requirements = [
    { key: 'kubernetes.io/arch', operator: 'In' as const, values: ['amd64'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['on-demand'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In' as const, values: ['c'] },
  ];
  const solveReplicas = (n: number, exactPackingMs?: number) => {
    const { pool } = batchObjects({ label: '', arch: 'amd64', categories: ['c'], generationAbove: 2, shapes: [] });
    pool.spec.template.spec.requirements = requirements;
    return solve({
      pods: pods(n, { cpu: '1' }),
      nodePools: [pool],
      instanceTypes: new Map([[pool.metadata.name, catalog]]),
      options: exactPackingMs === undefined ? {} : { exactPackingMs },
    });
  };

  it('puts 3 replicas of cpu:1 on one c6a.xlarge', () => {
    const r = solveReplicas(3);
    expect(r.nodeClaims.map((c) => c.cheapest.instanceType)).toEqual(['c6a.xlarge']);
    expect(cost(r)).toBeCloseTo(0.153, 6);
  });

  it('packs 10 replicas of cpu:1 for $0.459/h', () => {
    expect(cost(solveReplicas(10))).toBeCloseTo(0.459, 6);
  });

  it('finds the same without the exact program: the type search credits whole pods, not whole allocatable', () => {
    expect(cost(solveReplicas(3, 0))).toBeCloseTo(0.153, 6);
    expect(cost(solveReplicas(10, 0))).toBeCloseTo(0.459, 6);
  });
});
