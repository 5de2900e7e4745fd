import { describe, expect, it } from 'vitest';
import { measureWorkload } from './measure';
import { findWorkload } from './workloads';

// What `npm run bench` runs in each child process (bench/child.ts), on the smallest workloads of each kind.
describe('measureWorkload', () => {
  it('solves a workload (loading HiGHS itself) and prices it against the LP lower bound', {
    timeout: 60_000,
  }, async () => {
    for (const name of ['karpenter-1k', 'unconstrained-1k']) {
      const workload = findWorkload(name);
      if (!workload) throw new Error(`no workload ${name}`);
      const m = await measureWorkload(workload);
      expect(m.workload).toBe(name);
      expect(m.scheduledPods).toBe(m.pods);
      expect(m.nodeCount).toBeGreaterThan(0);
      expect(m.lowerBoundPerHour).toBeGreaterThan(0);
      expect(m.costPerHour).toBeGreaterThanOrEqual(m.lowerBoundPerHour);
    }
  });
});
