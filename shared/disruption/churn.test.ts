// Anti-churn over several sweeps: consolidation converges, and nothing it launched is replaced again by a cheaper node
// for the same pods (the churn loop). A launched node may still go in a merge that leaves fewer nodes than it takes:
// that saves a node, not cents, and the option narrowing cannot and should not forbid it (docs/disruption.md,
// Anti-churn).
import { describe, expect, it } from 'vitest';
import { applyPlan, disruptionInput, node, pool, TYPES } from '../../testkit/disruption';
import { planDisruption } from './plan';

const SIZES = ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'c5.xlarge', 'r5.xlarge', 'm5.4xlarge'];
const CPUS = ['100m', '250m', '500m', '750m', '1'];

describe('anti-churn', () => {
  it('settles a mixed cluster in a few sweeps and never replaces a node it launched', () => {
    const p = pool({ budgets: [{ nodes: '20%' }] });
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const nodes = Array.from({ length: 30 }, (_, i) => {
      const type = SIZES[Math.floor(next() * SIZES.length)] as string;
      const cpu = (TYPES.find((t) => t.name === type)?.allocatable.cpu ?? 0) * 0.9;
      const cpus: string[] = [];
      let used = 0;
      const want = 1 + Math.floor(next() * 10);
      while (cpus.length < want) {
        const c = CPUS[Math.floor(next() * CPUS.length)] as string;
        const m = c.endsWith('m') ? Number(c.slice(0, -1)) : Number(c) * 1000;
        if (used + m > cpu) break;
        used += m;
        cpus.push(c);
      }
      return node(`n${i}`, { pool: p, type, cpus });
    });
    let input = disruptionInput(nodes, { nodePools: [p] });
    const startCost = input.nodes.reduce((s, n) => s + (n.node.pricePerHour ?? 0), 0);
    const launched = new Set<string>();
    let sweeps = 0;
    for (; sweeps < 12; sweeps++) {
      const plan = planDisruption(input);
      if (plan.commands.length === 0) break;
      for (const c of plan.commands) {
        const merge = c.candidates.length > c.replacements.length && c.candidates.length > 1;
        for (const x of c.candidates) {
          if (!merge) expect(launched.has(x.name), `${x.name} launched then replaced`).toBe(false);
        }
        for (const r of c.replacements) launched.add(r.name);
        expect(c.savingPerHour).toBeGreaterThan(0);
      }
      input = applyPlan(input, plan);
    }
    expect(sweeps).toBeLessThan(12);
    const endCost = input.nodes.reduce((s, n) => s + (n.node.pricePerHour ?? 0), 0);
    expect(endCost).toBeLessThan(startCost * 0.8);
    // The settled cluster stays settled: another day of sweeps changes nothing.
    expect(planDisruption({ ...input, now: input.now + 24 * 3_600_000 }).commands).toEqual([]);
  });
});
