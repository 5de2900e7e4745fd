// A Kubernetes API outage longer than the termination queue's retries, in the middle of three drains, through the
// real handlers on the local pipeline (docs/disruption.md, Drains that outlive an outage): each drain's step messages
// end in the dead-letter queue, and once the API server answers again the Sweep tick queues every stalled drain
// again, with no redrive by hand. Every drain completes, and no claim is left Draining to hold a budget.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import { LIVE_STATES } from '../../shared/api/nodeclaim';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';
import { pdb } from '../../testkit/disruption';
import { MINUTE } from '../../testkit/repair';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

/** Three 3-CPU pods: one per xlarge node. */
const web = () => [0, 1, 2].map((i) => makePod(`web-${i}`, { cpu: '3', labels: { app: 'web' } }));

describe('local pipeline: a Kubernetes API outage during drains', () => {
  it('completes three drains after a 60-minute outage, with no redrive by hand', async () => {
    // Ticks every 5 minutes keep the 90 virtual minutes short; the recovery is asked of the first ticks after it.
    p = await pipeline({
      objects: [testNodePool(), testNodeClass(), pdb('web', { app: 'web' }, 1), ...web()],
      sweepEveryMs: 5 * MINUTE,
      gcEveryMs: 5 * MINUTE,
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const drained = (await pipe.store.list({ states: LIVE_STATES })).filter((c) => c.nodePool === 'default');
    expect(drained).toHaveLength(3);
    pipe.forwarder.upsert(testNodePool('other'));
    await pipe.runFor(MINUTE);

    // Three drains start (the NodePool's deletion ends its nodes), and the API server goes away before they finish.
    expect(await pipe.forwarder.deleteNodePool('default')).toBe(true);
    const allDraining = async () =>
      (await Promise.all(drained.map((c) => pipe.store.get(c.name)))).every((c) => c?.state === 'Draining');
    expect(await pipe.runUntil(allDraining, 5 * MINUTE)).toBe(true);
    pipe.kubeOutage.begin(60 * MINUTE);
    await pipe.runFor(60 * MINUTE);
    expect(pipe.kubeOutage.active).toBe(false);
    expect(pipe.kubeOutage.refused).toBeGreaterThan(0);
    // The outage outlived the retries: the drains' step messages are in the termination DLQ, and nothing took them
    // out of it.
    expect(pipe.queues.terminationDlq.size).toBeGreaterThan(0);
    const stranded = await Promise.all(drained.map((c) => pipe.store.get(c.name)));
    expect(stranded.filter((c) => c?.state === 'Draining').length).toBeGreaterThan(0);

    const recoveredAt = pipe.clock.now();
    const ended = async () =>
      (await Promise.all(drained.map((c) => pipe.store.get(c.name)))).every((c) => c?.state === 'Terminated');
    expect(await pipe.runUntil(ended, 20 * MINUTE)).toBe(true);
    expect(pipe.clock.now() - recoveredAt).toBeLessThan(10 * MINUTE);
    for (const c of drained) {
      expect(pipe.sim.getNode(c.nodeName ?? '')).toBeUndefined();
      expect((await pipe.simCloud.get(c.instanceId ?? ''))?.state).toBe('terminated');
    }
    const redriven = pipe.logs.filter((l) => l.message === 'termination stalled; its next step queued again');
    expect(redriven.length).toBeGreaterThan(0);
    // Each stranded drain was queued again once: the stall window keeps the redrive from doubling a live chain.
    const perClaim = new Map<string, number>();
    for (const l of redriven) perClaim.set(String(l.nodeClaim), (perClaim.get(String(l.nodeClaim)) ?? 0) + 1);
    expect([...perClaim.values()].every((n) => n === 1)).toBe(true);
    // Nothing is left Draining to hold a disruption budget, and the pods run again on the NodePool that is left.
    expect(await pipe.store.list({ states: ['Draining'] })).toEqual([]);
    expect(await pipe.runUntil(allBound(pipe), 10 * MINUTE)).toBe(true);
    expect(await pipe.audit()).toMatchObject({ orphanInstances: [], duplicateLaunches: [], pendingPods: [] });
  }, 180_000);
});
