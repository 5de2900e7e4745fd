import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, staticNodePool, type Testbed } from '../../testkit/bed';
import type { NodePool } from '../api/karpenter';
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
});
