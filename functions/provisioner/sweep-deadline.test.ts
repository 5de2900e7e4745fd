import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import { makePod, testNodePool } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { AFTER_SWEEP_RESERVE, createHandler } from './handler';

let lines: () => Record<string, unknown>[];
beforeEach(() => {
  lines = captureOutput();
});
afterEach(() => vi.restoreAllMocks());

/** Three m5.xlarge nodes, each left with one pod of 2.2 vCPU once its memory-heavy neighbour leaves: the pod fits on
 * no other node (1.7 vCPU free on each), and a c5.xlarge holds it for less, so every candidate needs the
 * replacement solve. */
async function threeReplaceableNodes() {
  const nodePool = testNodePool();
  nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidateAfter: '1m', budgets: [{ nodes: '100%' }] };
  const { t, observability } = functionBed('provisioner', { nodePool });
  for (let i = 0; i < 3; i++) {
    t.cluster.addPod(makePod(`keep-${i}`, { cpu: '2200m', memory: '1Gi' }));
    t.cluster.addPod(makePod(`heavy-${i}`, { cpu: '1', memory: '9Gi' }));
    await t.settle(60_000);
  }
  const nodes = await t.store.list({ states: ['Initialized'] });
  expect(nodes.map((c) => c.instanceType)).toEqual(['m5.xlarge', 'm5.xlarge', 'm5.xlarge']);
  for (let i = 0; i < 3; i++) t.cluster.deletePod(`default/heavy-${i}`);
  t.clock.advance(5 * 60_000);
  t.queue.take();
  // Each tick a fresh container: nothing but the store carries the sweep over.
  const tick = async (remainingMs?: number) =>
    expect(
      await createHandler(() => portsOf(t), observability)(
        sqsEvent([readFixture('sweep.json')]),
        fakeContext(remainingMs === undefined ? undefined : () => remainingMs),
      ),
    ).toEqual({ batchItemFailures: [] });
  const deciding = async () =>
    (await t.store.list({ states: ['Initialized'] })).filter((c) => c.disruption?.phase).map((c) => c.name);
  return { t, tick, deciding, nodes };
}

const emf = () => lines().filter((l) => '_aws' in l);

describe('provisioner handler: the disruption sweep on a deadline', () => {
  it('decides part of the sweep when out of time, keeps a cursor, and the next tick finishes from it', async () => {
    const { t, tick, deciding, nodes } = await threeReplaceableNodes();

    // Only the reserve is left: the sweep has no planning time, judges one candidate and defers the rest.
    await tick(AFTER_SWEEP_RESERVE.minMs);
    const first = await deciding();
    expect(first).toHaveLength(1);
    const cursor = await t.store.getSweepCursor();
    expect(cursor).toBeDefined();
    expect(first).not.toContain(nodes.find((c) => c.nodeName === cursor?.node)?.name);
    expect(emf().some((l) => l.SweepCandidatesDeferred === 2)).toBe(true);
    expect(emf().some((l) => l.SweepDeadlineReached === 1)).toBe(true);
    // The deferred candidates were not judged, so no Keep record says they stay.
    for (const c of nodes.filter((n) => !first.includes(n.name))) {
      expect((await t.store.listDecisions(c.name)).filter((d) => d.kind === 'Keep')).toEqual([]);
    }

    // The next tick, with time to spare, judges the other two and clears the cursor.
    lines();
    await tick();
    expect((await deciding()).sort()).toEqual(nodes.map((c) => c.name).sort());
    expect(await t.store.getSweepCursor()).toBeUndefined();
    expect(emf().some((l) => l.SweepCandidatesDeferred === 0)).toBe(true);
  });
});
