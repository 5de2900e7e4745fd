// The observer must catch what a careless sweep would do: a scripted sweep disrupts every node at once, past the
// NodePool's budget, and its drains run into terminationGracePeriod with a PDB-protected and a do-not-disrupt pod
// still on the nodes.
import { describe, expect, it } from 'vitest';
import { apply, deployment, MINUTE, nodeClass, nodePool, pdb, run, scenario, step } from '../../../testkit/scenario';
import type { DisruptionCommand, DisruptionPlan } from '../../disruption/types';
import type { SweepEngine } from './disruption-driver';

function recklessSweep(): SweepEngine {
  let fired = false;
  return {
    validationDelayMs: 15_000,
    validate: (command) => ({ command, blockers: [] }),
    plan(input): DisruptionPlan {
      const ready = input.nodes.filter((n) => n.claim.state === 'Initialized');
      const commands: DisruptionCommand[] = [];
      if (!fired && ready.length >= 3 && ready.length === input.nodes.length) {
        fired = true;
        const candidates = ready.map((n) => ({
          name: n.node.name,
          nodeClaim: n.claim.name,
          nodePool: n.claim.nodePool,
          price: 0,
          pods: n.node.pods.length,
          disruptionCost: 0,
        }));
        const record = {
          id: 'reckless',
          cluster: 'sim',
          at: new Date(input.now).toISOString(),
          kind: 'Disrupt' as const,
          nodeClaims: candidates.map((c) => c.nodeClaim),
          summary: 'scripted: everything at once',
          detail: {},
        };
        commands.push({
          id: 'reckless',
          reason: 'Underutilized',
          forceful: false,
          candidates,
          replacements: [],
          moves: {},
          savingPerHour: 0,
          record,
        });
      }
      return {
        at: input.now,
        commands,
        rejected: [],
        records: commands.map((c) => c.record),
        stats: { nodes: input.nodes.length, candidates: 0, solverCalls: 0, durationMs: 0 },
      };
    },
  };
}

describe('ViolationObserver', () => {
  it('counts budget, PDB and do-not-disrupt violations of a sweep that ignores them', async () => {
    const r = await run(
      scenario(15 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], budgets: [{ nodes: '1' }], terminationGracePeriod: '1m' }),
            nodeClass(),
            deployment('web', 4, { cpu: '1' }),
            pdb('web', 'web', { minAvailable: 4 }),
            deployment('keep', 1, { cpu: '1', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
          ),
        ),
      ]),
      { sweep: recklessSweep() },
    );
    expect(r.violations.budget).toBe(1);
    expect(r.violations.doNotDisrupt).toBe(1);
    expect(r.violations.pdb).toBeGreaterThanOrEqual(1);
    expect(r.violationRecords.find((v) => v.kind === 'budget')?.detail).toMatch(
      /NodePool general: 5 node\(s\) disrupting, budget for Underutilized allows 1/,
    );
    expect(r.violationRecords.find((v) => v.kind === 'doNotDisrupt')?.detail).toMatch(
      /^default\/keep-0 \(do-not-disrupt\) left /,
    );
  });
});
