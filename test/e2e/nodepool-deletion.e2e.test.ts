// `kubectl delete nodepool` through the real handlers on the local pipeline (docs/disruption.md, Deleting a NodePool):
// the forwarder's NodePoolChanged reaches the provisioner Lambda, which starts the termination of the pool's claims
// (as Karpenter's owner references cascade); the termination Lambda cordons, drains under the PodDisruptionBudget and
// terminates each instance; the pods run again on the NodePool that is left. With the hint lost, the GC Lambda's
// tick does the same.
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

const liveOf = async (pipe: LocalPipeline, pool: string) =>
  (await pipe.store.list({ states: LIVE_STATES })).filter((c) => c.nodePool === pool);

/** Every pod bound to a node of `pool`. */
const allOn = (pipe: LocalPipeline, pool: string) => async () => {
  const nodes = new Set((await liveOf(pipe, pool)).flatMap((c) => (c.nodeName ? [c.nodeName] : [])));
  const podList = pipe.sim.allPods();
  return podList.length > 0 && podList.every((x) => x.spec.nodeName !== undefined && nodes.has(x.spec.nodeName));
};

describe('local pipeline: deleting a NodePool', () => {
  it('drains and terminates the nodes of a deleted NodePool on the forwarder hint, under a PDB', async () => {
    // GC and the Sweep every 30 minutes: what happens sooner came from the NodePoolChanged hint.
    p = await pipeline({
      objects: [testNodePool(), testNodeClass(), pdb('web', { app: 'web' }, 1), ...web()],
      gcEveryMs: 30 * MINUTE,
      sweepEveryMs: 30 * MINUTE,
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const before = await liveOf(pipe, 'default');
    expect(before).toHaveLength(3);
    pipe.forwarder.upsert(testNodePool('other'));
    await pipe.runFor(MINUTE);

    const deletedAt = pipe.clock.now();
    expect(await pipe.forwarder.deleteNodePool('default')).toBe(true);
    const gone = async () => (await liveOf(pipe, 'default')).length === 0;
    expect(await pipe.runUntil(gone, 20 * MINUTE)).toBe(true);
    expect(pipe.clock.now() - deletedAt).toBeLessThan(20 * MINUTE);
    for (const c of before) {
      const claim = await pipe.store.get(c.name);
      expect(claim).toMatchObject({
        state: 'Terminated',
        disruption: { cause: 'NodePoolDeleted', detail: 'NodePool default was deleted' },
      });
      // Started by the hint, well before the first GC tick.
      expect(Date.parse(claim?.disruption?.at ?? '') - deletedAt).toBeLessThan(MINUTE);
      expect(pipe.sim.getNode(c.nodeName ?? '')).toBeUndefined();
      expect((await pipe.simCloud.get(c.instanceId ?? ''))?.state).toBe('terminated');
    }
    expect(pipe.timeline.some((e) => e.kind === 'batch-sent' && e.text.startsWith('NodePoolChanged'))).toBe(true);
    // The PDB allowed one web pod down at a time: evictions were refused while another web pod was moving.
    expect(pipe.sim.events.some((e) => e.reason === 'FailedDraining' && e.involved.kind === 'Node')).toBe(true);
    // Drained, not dropped: every pod runs again on the NodePool that is left.
    expect(await pipe.runUntil(allOn(pipe, 'other'), 10 * MINUTE)).toBe(true);
    expect(await pipe.audit()).toMatchObject({ orphanInstances: [], duplicateLaunches: [] });
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('the GC tick terminates them when no hint came (a NodePool held by another finalizer)', async () => {
    p = await pipeline({
      objects: [testNodePool(), testNodeClass(), ...web().slice(0, 1)],
      gcEveryMs: 2 * MINUTE,
      sweepEveryMs: 30 * MINUTE,
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const [claim] = await liveOf(pipe, 'default');
    if (!claim) throw new Error('no claim');
    pipe.forwarder.upsert(testNodePool('other'));
    await pipe.runFor(MINUTE);
    // Marked for deletion straight in the cluster, out of the forwarder's sight: only GC can see it.
    expect(pipe.sim.deleteNodePool('default', { held: true })).toBe(true);
    const ended = async () => (await pipe.store.get(claim.name))?.state === 'Terminated';
    expect(await pipe.runUntil(ended, 10 * MINUTE)).toBe(true);
    expect((await pipe.store.get(claim.name))?.disruption).toMatchObject({
      cause: 'NodePoolDeleted',
      detail: 'NodePool default is being deleted',
    });
    expect(pipe.invocations.some((i) => i.fn === 'gc')).toBe(true);
    expect(await pipe.runUntil(allOn(pipe, 'other'), 10 * MINUTE)).toBe(true);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('ends the old nodes of a NodePool deleted and created again under its name before the hint ran', async () => {
    // In Karpenter the NodeClaims' owner reference names the old pool's UID, so they go even though the name lives on.
    p = await pipeline({
      objects: [testNodePool(), testNodeClass(), ...web()],
      gcEveryMs: 30 * MINUTE,
      sweepEveryMs: 30 * MINUTE,
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const before = await liveOf(pipe, 'default');
    expect(before).toHaveLength(3);
    const oldUid = (await pipe.sim.listNodePools())[0]?.metadata.uid;
    expect(oldUid).toBeDefined();
    expect(before.every((c) => c.nodePoolUid === oldUid)).toBe(true);

    // `kubectl delete nodepool default && kubectl apply -f default.yaml`: both reach the forwarder in one batch, so
    // the provisioner only ever lists a NodePool named default.
    const deletedAt = pipe.clock.now();
    expect(await pipe.forwarder.deleteNodePool('default')).toBe(true);
    pipe.forwarder.upsert(testNodePool());
    const newUid = (await pipe.sim.listNodePools())[0]?.metadata.uid;
    expect(newUid).not.toBe(oldUid);
    const oldGone = async () =>
      (await Promise.all(before.map((c) => pipe.store.get(c.name)))).every((c) => c?.state === 'Terminated');
    expect(await pipe.runUntil(oldGone, 20 * MINUTE)).toBe(true);
    for (const c of before) {
      const claim = await pipe.store.get(c.name);
      expect(claim?.disruption).toMatchObject({
        cause: 'NodePoolDeleted',
        detail: `NodePool default was deleted (UID ${oldUid}; the NodePool default listed now is UID ${newUid})`,
      });
      // Started by the hint, well before the first GC tick.
      expect(Date.parse(claim?.disruption?.at ?? '') - deletedAt).toBeLessThan(MINUTE);
      expect((await pipe.simCloud.get(c.instanceId ?? ''))?.state).toBe('terminated');
    }
    // The pods run again on nodes of the new pool, which recorded its UID and are left alone.
    expect(await pipe.runUntil(allOn(pipe, 'default'), 10 * MINUTE)).toBe(true);
    const after = await liveOf(pipe, 'default');
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((c) => c.nodePoolUid === newUid && c.state !== 'Draining')).toBe(true);
    expect(await pipe.audit()).toMatchObject({ orphanInstances: [], duplicateLaunches: [] });
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });
});
