// kubernetes-sigs/karpenter pkg/controllers/nodepool/counter/suite_test.go, Context("Status.Nodes Field"), case by
// case: the status pass (shared/controllers/status.ts, run on each Sweep tick) publishes the count of a pool's nodes
// as status.nodes, which the NodePool CRD's scale subresource reads for `kubectl scale nodepool` and its NODES column
// prints. Karpenter's counter reconcile is one publishStatus here; its nodes are the pools' own launches.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import { publishStatus } from '../../../shared/controllers/status';
import { startTermination } from '../../../shared/controllers/termination';
import { createTestbed, makePod, staticNodePool, type Testbed, testNodePool } from '../../../testkit/bed';
import { activeClaims, reconcileStatic, runningStaticBed, settleNodes } from '../../../testkit/static-bed';

/** Karpenter's ExpectObjectReconciled on the counter, then ExpectExists: the pool as the API server now holds it. */
async function reconciled(t: Testbed, name: string): Promise<NodePool> {
  await publishStatus(t.deps);
  const pool = (await t.cluster.listNodePools()).find((p) => p.metadata.name === name);
  if (!pool) throw new Error(`no NodePool ${name}`);
  return pool;
}

/** A dynamic pool running one node per 3-cpu pod (the bed's types hold one each). */
async function dynamicBed(pods: number): Promise<Testbed> {
  const t = createTestbed();
  for (let i = 0; i < pods; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '3' }));
  await t.settle(2 * 60_000);
  return t;
}

describe('Counter', () => {
  describe('Status.Nodes Field', () => {
    it('should set Status.Nodes to zero when no nodes exist', async () => {
      const t = createTestbed();
      const pool = await reconciled(t, 'default');
      expect(pool.status?.nodes).toBe(0);
      expect(pool.status?.resources.nodes).toBe('0');
    });

    it('should set Status.Nodes to 2 when two nodes exist', async () => {
      const t = await dynamicBed(2);
      expect((await reconciled(t, 'default')).status?.nodes).toBe(2);
    });

    it('should update Status.Nodes when nodes are added and removed', async () => {
      const t = createTestbed();
      expect((await reconciled(t, 'default')).status?.nodes).toBe(0);
      t.cluster.addPod(makePod('web-0', { cpu: '3' }));
      await t.settle(2 * 60_000);
      expect((await reconciled(t, 'default')).status?.nodes).toBe(1);
      t.cluster.addPod(makePod('web-1', { cpu: '3' }));
      await t.settle(2 * 60_000);
      expect((await reconciled(t, 'default')).status?.nodes).toBe(2);

      // Remove the nodes one at a time (Karpenter deletes the Node and its NodeClaim).
      const claims = await t.store.list({ states: ['Initialized'] });
      for (const [i, claim] of claims.entries()) {
        t.cluster.deletePod(`default/web-${i}`);
        await startTermination(t.deps, claim, { cause: 'Deleted' });
        await t.settle(2 * 60_000);
        expect((await reconciled(t, 'default')).status?.nodes).toBe(claims.length - i - 1);
      }
    });

    it('should handle multiple nodepools including static with different node counts', async () => {
      const t = createTestbed({ nodePool: testNodePool('default') });
      t.cluster.upsert(staticNodePool(2));
      const web = makePod('web-0', { cpu: '3' });
      web.spec.nodeSelector = { 'karpenter.sh/nodepool': 'default' };
      t.cluster.addPod(web);
      await reconcileStatic(t);
      await t.settle(2 * 60_000);
      expect((await activeClaims(t)).map((c) => c.state)).toEqual(['Initialized', 'Initialized']);
      expect((await reconciled(t, 'default')).status?.nodes).toBe(1);
      expect((await reconciled(t, 'static')).status?.nodes).toBe(2);
    });

    it('should handle static nodepools with replicas correctly', async () => {
      // Two nodes of a pool that wants three: limits.nodes holds it at two, as Karpenter's test applies two by hand.
      const t = await runningStaticBed(2, staticNodePool(3, { limits: { nodes: '2' } }));
      await reconcileStatic(t);
      await settleNodes(t);
      const pool = await reconciled(t, 'static');
      // Status.Nodes is the nodes there are (2), not the replicas wanted (3), and the spec keeps its replicas.
      expect(pool.status?.nodes).toBe(2);
      expect(pool.spec.replicas).toBe(3);
    });
  });
});
