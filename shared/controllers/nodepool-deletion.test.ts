import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, staticNodePool, type Testbed } from '../../testkit/bed';
import type { NodePool } from '../api/karpenter';
import type { NodeClaim } from '../api/nodeclaim';
import { terminateDeletedNodeClaims } from './nodeclaim-deletion';
import { mirrorNodeClaims } from './nodeclaim-mirror';
import { terminateClaimsOfDeletedNodePools } from './nodepool-deletion';

/** A bed running one node of the default pool; `pools` replaces what the API server lists from then on. */
async function bed(): Promise<{ t: Testbed; list: (pools: NodePool[]) => void }> {
  const t = createTestbed();
  t.cluster.addPod(makePod('web-0', { cpu: '3' }));
  await t.settle(2 * 60_000);
  const list = (pools: NodePool[]) => {
    t.deps.kube = Object.assign(Object.create(t.cluster), { listNodePools: async () => pools });
  };
  return { t, list };
}

/** `kubectl delete nodepool` and `kubectl apply` of the same manifest: the API server gives it a new UID. */
function recreate(t: Testbed, pool: NodePool): void {
  t.cluster.deleteNodePool(pool.metadata.name);
  const { uid: _old, ...metadata } = pool.metadata;
  t.cluster.upsert({ ...pool, metadata });
}

/** The bed's running claim stored again as an earlier release stored it: without its NodePool's UID. */
async function storedWithoutUid(t: Testbed): Promise<NodeClaim> {
  const [written] = await t.store.list({ states: ['Initialized'] });
  if (!written) throw new Error('no claim');
  const { nodePoolUid: _uid, ...rest } = written;
  await t.store.delete(written);
  return t.store.create({ ...rest, version: 1 });
}

describe('terminateClaimsOfDeletedNodePools', () => {
  it('leaves the claims of a pool that exists', async () => {
    const { t } = await bed();
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([]);
    expect((await t.store.list({ states: ['Initialized'] })).length).toBe(1);
  });

  it('terminates the claims of a pool gone from the cluster, and drains their nodes', async () => {
    const { t, list } = await bed();
    const [claim] = await t.store.list({ states: ['Initialized'] });
    list([staticNodePool(0)]);
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([claim?.name]);
    expect((await t.store.get(claim?.name ?? ''))?.disruption).toMatchObject({
      cause: 'NodePoolDeleted',
      detail: 'NodePool default was deleted',
    });
    await t.settle(2 * 60_000);
    expect((await t.store.get(claim?.name ?? ''))?.state).toBe('Terminated');
    // Already draining: a second run starts nothing.
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([]);
  });

  it('terminates the claims of a pool being deleted (a foreground deletion waits with its deletionTimestamp)', async () => {
    const { t, list } = await bed();
    const pool = (await t.cluster.listNodePools())[0] as NodePool;
    list([{ ...pool, metadata: { ...pool.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }]);
    const deleted = await terminateClaimsOfDeletedNodePools(t.deps);
    expect(deleted).toHaveLength(1);
    expect((await t.store.get(deleted[0] ?? ''))?.disruption?.detail).toBe('NodePool default is being deleted');
  });

  it('terminates the claims of a pool deleted and created again under its name, by its UID', async () => {
    const { t } = await bed();
    const pool = (await t.cluster.listNodePools())[0] as NodePool;
    const [claim] = await t.store.list({ states: ['Initialized'] });
    // Provisioning recorded the pool's UID, as Karpenter's owner reference does.
    expect(claim?.nodePoolUid).toBe(pool.metadata.uid);
    recreate(t, pool);
    const again = (await t.cluster.listNodePools())[0] as NodePool;
    expect(again.metadata.uid).toBeDefined();
    expect(again.metadata.uid).not.toBe(pool.metadata.uid);
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([claim?.name]);
    expect((await t.store.get(claim?.name ?? ''))?.disruption).toMatchObject({
      cause: 'NodePoolDeleted',
      detail: `NodePool default was deleted (UID ${pool.metadata.uid}; the NodePool default listed now is UID ${again.metadata.uid})`,
    });
  });

  it('adopts a claim written before UIDs by name, once, and then ends it with that pool only', async () => {
    const { t } = await bed();
    const pool = (await t.cluster.listNodePools())[0] as NodePool;
    const legacy = await storedWithoutUid(t);
    expect(legacy.nodePoolUid).toBeUndefined();

    // The first run terminates nothing (the pool stands, by name) and stamps the live pool's UID.
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([]);
    const adopted = await t.store.get(legacy.name);
    expect(adopted).toMatchObject({ state: 'Initialized', nodePoolUid: pool.metadata.uid });
    // Once: the next run writes nothing.
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([]);
    expect((await t.store.get(legacy.name))?.version).toBe(adopted?.version);

    // From now on it belongs to that pool: re-created under its name, the old pool's node goes.
    recreate(t, pool);
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([legacy.name]);
  });

  it('matches by name a claim without a UID whose pool was re-created before it was adopted (no mass termination)', async () => {
    const { t } = await bed();
    const pool = (await t.cluster.listNodePools())[0] as NodePool;
    const written = await storedWithoutUid(t);
    recreate(t, pool);
    const again = (await t.cluster.listNodePools())[0] as NodePool;
    // Nothing said which pool it was: the one of its name adopts it, as before UIDs were recorded.
    expect(await terminateClaimsOfDeletedNodePools(t.deps)).toEqual([]);
    expect((await t.store.get(written.name))?.nodePoolUid).toBe(again.metadata.uid);
  });

  it('ends a claim whose object the garbage collector deleted with its NodePool as the pool cascade, not a deletion', async () => {
    const { t, list } = await bed();
    const [claim] = await t.store.list({ states: ['Initialized'] });
    await mirrorNodeClaims(t.deps);
    // The owner reference's cascade: the object gets its deletion mark, and the forwarder's hint may come first.
    expect(t.cluster.requestNodeClaimObjectDeletion(claim?.name ?? '')).toBe(true);
    list([staticNodePool(0)]);
    expect((await terminateDeletedNodeClaims(t.deps)).terminating).toEqual([claim?.name]);
    expect((await t.store.get(claim?.name ?? ''))?.disruption).toMatchObject({
      cause: 'NodePoolDeleted',
      detail: 'NodePool default was deleted',
    });
  });
});
