import { beforeAll, describe, expect, it } from 'vitest';
import { input } from '../../../testkit/builders';
import { firstFitDecreasingCost } from '../../../testkit/ffd';
import { fixtureInstanceTypes, syntheticInstanceTypes } from '../../../testkit/instance-types';
import { scheduledCount, totalCost } from '../../../testkit/solve';
import { mixedPods } from '../../../testkit/workloads';
import { lowerBound, solve } from '../index';
import { loadLpSolver } from '../lp';

beforeAll(loadLpSolver);

describe('acceptance: cost', () => {
  it('beats first-fit-decreasing and lands within 5 % of the LP lower bound on a mixed workload', () => {
    const types = fixtureInstanceTypes();
    const pods = mixedPods(600, 7);
    const r = solve(input({ pods, types }));
    expect(scheduledCount(r)).toBe(600);
    const ours = totalCost(r);
    const ffd = firstFitDecreasingCost(pods, types).cost;
    const lb = lowerBound(pods, types);
    expect(ours).toBeLessThan(ffd);
    expect(ours).toBeLessThanOrEqual(lb * 1.05);
    expect(ours).toBeGreaterThanOrEqual(lb - 1e-6);
  });

  it('stays within 5 % of the bound on Karpenter-style synthetic types', () => {
    const types = syntheticInstanceTypes(60);
    const pods = mixedPods(400, 3);
    const r = solve(input({ pods, types }));
    expect(totalCost(r)).toBeLessThanOrEqual(lowerBound(pods, types) * 1.05);
  });

  it('computes the LP lower bound from allocatable and cheapest offerings', () => {
    const types = syntheticInstanceTypes(4);
    // One 1-vCPU pod: the bound is a fraction of the cheapest per-vCPU type, not a whole node.
    const pods = mixedPods(1, 1);
    const lb = lowerBound(pods, types);
    expect(lb).toBeGreaterThan(0);
    expect(lb).toBeLessThan(Math.min(...types.map((t) => t.offerings[0]?.price ?? 0)));
    expect(lowerBound([], types)).toBe(0);
  });

  it('subtracts DaemonSet overhead in the bound', () => {
    const types = fixtureInstanceTypes();
    const pods = mixedPods(100, 5);
    expect(lowerBound(pods, types, { cpu: 500, memory: 512 * 2 ** 20 })).toBeGreaterThan(lowerBound(pods, types));
  });

  it('returns Infinity when a requested resource is offered by no type', () => {
    const pods = mixedPods(1, 1).map((p) => ({
      ...p,
      spec: { ...p.spec, containers: [{ name: 'x', resources: { requests: { 'aws.amazon.com/neuron': 1 } } }] },
    }));
    expect(lowerBound(pods, fixtureInstanceTypes())).toBe(Number.POSITIVE_INFINITY);
  });
});
