import { describe, expect, it } from 'vitest';
import { checkTargets, type Measurement } from './targets';
import { findWorkload, WORKLOADS } from './workloads';

const base: Measurement = {
  workload: 'x',
  description: 'x',
  pods: 5000,
  scheduledPods: 5000,
  wallMs: 1000,
  podsPerSecond: 5000,
  peakRssBytes: 300 * 2 ** 20,
  nodeCount: 10,
  costPerHour: 10,
  lowerBoundPerHour: 9.9,
  costRatio: 10 / 9.9,
};

describe('workloads and targets', () => {
  it('defines the three benchmark families', () => {
    expect(WORKLOADS.map((w) => w.name)).toEqual([
      'karpenter-mixed-1k',
      'karpenter-mixed-5k',
      'karpenter-mixed-20k',
      'catalog-mixed-1k',
      'catalog-mixed-5k',
      'catalog-mixed-20k',
      'unconstrained-1k',
      'unconstrained-10k',
    ]);
  });

  it('checks throughput at 5k pods', () => {
    const w = findWorkload('karpenter-mixed-5k')!;
    expect(checkTargets(w, base).pass).toBe(true);
    const slow = checkTargets(w, { ...base, podsPerSecond: 2400 });
    expect(slow.pass).toBe(false);
    expect(slow.checks.filter((c) => !c.pass).map((c) => c.target)).toEqual(['≥ 2500 pods/s']);
  });

  it('checks wall time at 20k pods, RSS everywhere and cost on unconstrained mixes', () => {
    const big = findWorkload('karpenter-mixed-20k')!;
    expect(checkTargets(big, { ...base, pods: 20000, scheduledPods: 20000, wallMs: 8001 }).pass).toBe(false);
    expect(checkTargets(big, { ...base, pods: 20000, scheduledPods: 20000, wallMs: 7999 }).pass).toBe(true);
    expect(checkTargets(big, { ...base, pods: 20000, scheduledPods: 20000, peakRssBytes: 2 ** 30 + 1 }).pass).toBe(
      false,
    );
    const cost = findWorkload('unconstrained-1k')!;
    expect(checkTargets(cost, { ...base, costRatio: 1.04 }).pass).toBe(true);
    expect(checkTargets(cost, { ...base, costRatio: 1.06 }).pass).toBe(false);
    const { costRatio: _none, ...noBound } = base;
    expect(checkTargets(cost, noBound).pass).toBe(false);
  });

  it('fails a run that left pods unscheduled', () => {
    expect(checkTargets(findWorkload('karpenter-mixed-1k')!, { ...base, scheduledPods: 4999 }).pass).toBe(false);
  });
});
