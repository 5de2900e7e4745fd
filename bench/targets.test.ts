import { describe, expect, it } from 'vitest';
import { checkTargets, type Measurement } from './targets';
import { findWorkload, WORKLOADS } from './workloads';

const base: Measurement = {
  workload: 'x',
  description: 'x',
  pods: 5000,
  scheduledPods: 5000,
  wallMs: 400,
  podsPerSecond: 12_500,
  peakRssBytes: 300 * 2 ** 20,
  nodeCount: 10,
  costPerHour: 10,
  lowerBoundPerHour: 9.9,
  costRatio: 10 / 9.9,
};

const at = (pods: number): Measurement => ({ ...base, pods, scheduledPods: pods });

describe('workloads and targets', () => {
  it('defines Karpenter’s benchmark, the renamed mixes, the cost mixes and the distinct-request rows', () => {
    expect(WORKLOADS.map((w) => w.name)).toEqual([
      'karpenter-1k',
      'karpenter-5k',
      'karpenter-20k',
      'karpenter-6-groups-5k',
      'synthetic-mixed-1k',
      'synthetic-mixed-5k',
      'synthetic-mixed-20k',
      'catalog-mixed-1k',
      'catalog-mixed-5k',
      'catalog-mixed-20k',
      'unconstrained-1k',
      'unconstrained-10k',
      'distinct-5k',
      'distinct-20k',
      'distinct-unconstrained-50k',
    ]);
    expect(WORKLOADS.every((w) => w.build(1).length === w.pods || w.pods > 5000)).toBe(true);
  });

  it('holds every 5k benchmark mix above 10,000 pods/s (issue 13)', () => {
    for (const name of ['karpenter-5k', 'karpenter-6-groups-5k', 'synthetic-mixed-5k', 'catalog-mixed-5k']) {
      const w = findWorkload(name)!;
      expect(checkTargets(w, base).pass).toBe(true);
      const slow = checkTargets(w, { ...base, podsPerSecond: 9999 });
      expect(slow.pass).toBe(false);
      expect(slow.checks.filter((c) => !c.pass).map((c) => c.target)).toEqual(['≥ 10000 pods/s']);
    }
  });

  it('checks wall time at 20k pods, RSS everywhere and cost on unconstrained mixes', () => {
    const big = findWorkload('karpenter-20k')!;
    expect(checkTargets(big, { ...at(20000), wallMs: 8001 }).pass).toBe(false);
    expect(checkTargets(big, { ...at(20000), wallMs: 7999 }).pass).toBe(true);
    expect(checkTargets(big, { ...at(20000), peakRssBytes: 2 ** 30 + 1 }).pass).toBe(false);
    const cost = findWorkload('unconstrained-1k')!;
    expect(checkTargets(cost, { ...base, costRatio: 1.04 }).pass).toBe(true);
    expect(checkTargets(cost, { ...base, costRatio: 1.06 }).pass).toBe(false);
    const { costRatio: _none, ...noBound } = base;
    expect(checkTargets(cost, noBound).pass).toBe(false);
  });

  it('holds 20k distinct pods to 2.5 × the CPU of the same pods rounded, measured in the run', () => {
    const w = findWorkload('distinct-20k')!;
    expect(checkTargets(w, { ...at(20000), cpuMs: 5000, compareCpuMs: 2000, cpuRatio: 2.5 }).pass).toBe(true);
    const slow = checkTargets(w, { ...at(20000), cpuMs: 5200, compareCpuMs: 2000, cpuRatio: 2.6 });
    expect(slow.checks.filter((c) => !c.pass).map((c) => c.target)).toEqual(['CPU ≤ 2.5 × rounded to 12 steps']);
    expect(checkTargets(w, at(20000)).pass).toBe(false);
    // The 5k row reports its ratio without a target.
    expect(checkTargets(findWorkload('distinct-5k')!, { ...base, cpuRatio: 9 }).pass).toBe(true);
  });

  it('holds 50k distinct unconstrained pods to 15 s of CPU, 1 GiB and 1.05 × the bound', () => {
    const w = findWorkload('distinct-unconstrained-50k')!;
    expect(checkTargets(w, { ...at(50000), cpuMs: 14_999 }).pass).toBe(true);
    const failed = checkTargets(w, { ...at(50000), cpuMs: 15_001, peakRssBytes: 2 ** 30 + 1, costRatio: 1.051 });
    expect(failed.checks.filter((c) => !c.pass).map((c) => c.target)).toEqual([
      '≤ 15 s CPU',
      'RSS ≤ 1 GiB',
      'cost ≤ 1.05 × LB',
    ]);
    expect(checkTargets(w, at(50000)).pass).toBe(false);
  });

  it('fails a run that left pods unscheduled', () => {
    expect(checkTargets(findWorkload('karpenter-1k')!, { ...at(1000), scheduledPods: 999 }).pass).toBe(false);
  });
});
