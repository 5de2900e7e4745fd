// The sweep's time budget (docs/disruption.md, A deadline for the sweep): a sweep cut short keeps what it decided,
// defers the candidates it did not judge (no record for them) and leaves a cursor; the next sweep starts there.
import { beforeAll, describe, expect, it } from 'vitest';
import { boundPod, disruptionInput, node, pool } from '../../testkit/disruption';
import { loadLpSolver } from '../scheduling';
import { planDisruption } from './plan';
import type { DisruptionInput, DisruptionPlan } from './types';

beforeAll(loadLpSolver);

/** A clock that moves one millisecond every time it is read: the deadline falls mid-sweep, deterministically. */
function tickingClock(): () => number {
  let t = 0;
  return () => ++t;
}

/** Nodes whose one pod fits on no other node (40Gi on m5.4xlarge, 24Gi free on each of the others), so every
 * candidate needs the replacement solve; each is cheaper on an r5 node. */
function oversizedNodes(n: number): DisruptionInput {
  const p = pool();
  const nodes = Array.from({ length: n }, (_, i) =>
    node(`n${i}`, { pool: p, type: 'm5.4xlarge', pods: [boundPod(`n${i}`, '1', '40Gi')] }),
  );
  return disruptionInput(nodes, { nodePools: [p] });
}

const decided = (plan: DisruptionPlan): string[] => plan.commands.flatMap((c) => c.candidates.map((x) => x.name));

/** The cluster once a plan's commands are in flight: their candidates are going, so no later sweep takes them. */
function without(input: DisruptionInput, plan: DisruptionPlan): DisruptionInput {
  const gone = new Set(decided(plan));
  return {
    ...input,
    nodes: input.nodes.map((n) => (gone.has(n.node.name) ? { ...n, node: { ...n.node, markedForDeletion: true } } : n)),
  };
}

describe('the sweep deadline', () => {
  it('stops with partial progress and a cursor, and the next sweep resumes there and finishes', () => {
    const input = oversizedNodes(6);
    const ample = planDisruption(input);
    expect(ample.stats.deadlineReached).toBe(false);
    expect(ample.cursor).toBeUndefined();
    expect(decided(ample).sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5']);

    const first = planDisruption({ ...input, options: { timeBudgetMs: 5, timer: tickingClock() } });
    expect(first.stats.deadlineReached).toBe(true);
    expect(decided(first).length).toBeGreaterThan(0);
    expect(first.stats.deferred).toBe(6 - decided(first).length);
    // Deferred candidates were not judged: no Keep record says they stay.
    expect(first.rejected).toEqual([]);
    expect(first.records.every((r) => r.kind === 'Disrupt')).toBe(true);
    const cursor = first.cursor;
    expect(cursor).toBeDefined();
    expect(decided(first)).not.toContain(cursor?.node);

    const second = planDisruption({ ...without(input, first), ...(cursor ? { resumeFrom: cursor } : {}) });
    expect(second.stats.deadlineReached).toBe(false);
    expect(second.cursor).toBeUndefined();
    expect([...decided(first), ...decided(second)].sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5']);
  });

  it('moves on every sweep even when every sweep runs out of time at once', () => {
    let input = oversizedNodes(5);
    const seen: string[] = [];
    for (let sweep = 0; sweep < 5 && seen.length < 5; sweep++) {
      const plan = planDisruption({ ...input, options: { timeBudgetMs: 0, timer: tickingClock() } });
      // A budget already spent still judges one candidate: the solver always places its first pod.
      expect(decided(plan).length).toBeGreaterThan(0);
      seen.push(...decided(plan));
      input = { ...without(input, plan), ...(plan.cursor ? { resumeFrom: plan.cursor } : {}) };
    }
    expect(seen.sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
  });

  it('starts consolidation at the cursor and wraps around to the candidates before it', () => {
    const input = oversizedNodes(4);
    // Keep the batch to one candidate, so which one goes first shows where the sweep started.
    const one = { ...input.options, maxBatchCandidates: 1 };
    const plain = planDisruption({ ...input, options: one });
    expect(decided(plain)).toEqual(['n0']);
    const resumed = planDisruption({
      ...input,
      options: one,
      resumeFrom: { node: 'n2', price: 0.768, rescheduleCost: 2, at: input.now },
    });
    expect(decided(resumed)).toEqual(['n2']);
    // A cursor whose node has gone still places the sweep: n2's position, between n1 and n3.
    const gone = planDisruption({
      ...input,
      nodes: input.nodes.filter((n) => n.node.name !== 'n2'),
      options: one,
      resumeFrom: { node: 'n2', price: 0.768, rescheduleCost: 2, at: input.now },
    });
    expect(decided(gone)).toEqual(['n3']);
  });
});
