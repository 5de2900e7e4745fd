// kubernetes-sigs/karpenter pkg/controllers/static/deprovisioning/suite_test.go, case by case, on the test bed with
// the real provisioning pass (which runs the static scale-down: shared/controllers/static-scale-down.ts). Karpenter's
// "Deleting" count is the store's Draining claims; a deleted NodeClaim is one whose termination has started.
//
// Skipped by design:
// - "Helper Functions / hasNodePoolReplicaOrStatusChanged" (should detect replica changes, should return false for
//   identical replicas): Karpenter's event predicate deciding which NodePool updates wake the controller. Karpless's
//   forwarder sends NodePoolChanged for every NodePool change and each Sweep tick runs a pass that re-reads
//   everything, so there is no predicate to test.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import { startTermination } from '../../../shared/controllers/termination';
import { createTestbed, makePod, type PodOptions, staticNodePool, type Testbed } from '../../../testkit/bed';
import { nodeClaim } from '../../../testkit/builders';
import { activeClaims, poolClaims, reconcileStatic, runningStaticBed, settleNodes } from '../../../testkit/static-bed';

/** The pool's claims not on their way out, by name. */
const activeNames = async (t: Testbed): Promise<string[]> => (await activeClaims(t)).map((c) => c.name).sort();

/** Binds a pod to the node of a claim. */
function podOn(t: Testbed, claim: NodeClaim, name: string, o: PodOptions = {}): void {
  if (!claim.nodeName) throw new Error(`claim ${claim.name} has no node`);
  t.cluster.addPod(makePod(name, { ...o, nodeName: claim.nodeName }));
}

/** The running claims, oldest first (the order Karpenter's test indexes its nodes in). */
async function nodes(t: Testbed): Promise<NodeClaim[]> {
  return (await activeClaims(t)).sort((a, b) => a.name.localeCompare(b.name));
}

const deleting = (pool: NodePool): NodePool => ({
  ...pool,
  metadata: { ...pool.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
});

describe('Static Deprovisioning Controller', () => {
  describe('Reconcile', () => {
    it('should return early if nodepool is not managed by cloud provider', async () => {
      // Karpless's "not managed": a pool left to Karpenter during a cut-over (clusters.yaml `nodePools`).
      const t = await runningStaticBed(2, staticNodePool(1));
      t.deps.config = { ...t.deps.config, ownedNodePools: ['other'] };
      expect((await reconcileStatic(t)).scaledDown).toEqual([]);
      expect(await activeClaims(t)).toHaveLength(2);
    });

    it('should return early if nodepool replicas is nil', async () => {
      const t = createTestbed({ nodePool: staticNodePool(undefined) });
      expect((await reconcileStatic(t)).scaledDown).toEqual([]);
    });

    it('should return early if nodepool is being deleted', async () => {
      const t = await runningStaticBed(2, staticNodePool(1));
      t.cluster.upsert(deleting(staticNodePool(1)));
      expect((await reconcileStatic(t)).scaledDown).toEqual([]);
      expect(await activeClaims(t)).toHaveLength(2);
    });

    it('should return early if current node count is less than or equal to desired replicas', async () => {
      const t = await runningStaticBed(2, staticNodePool(3));
      expect((await reconcileStatic(t)).scaledDown).toEqual([]);
      expect((await poolClaims(t)).filter((c) => c.state === 'Draining')).toEqual([]);
    });

    it('should only consider running nodeclaims and not deleting nodeclaims', async () => {
      const t = await runningStaticBed(4, staticNodePool(1));
      for (const c of (await nodes(t)).slice(0, 3)) await startTermination(t.deps, c, { cause: 'Deleted' });
      expect((await reconcileStatic(t)).scaledDown).toEqual([]);
      expect(await poolClaims(t)).toHaveLength(4);
      expect(await activeClaims(t)).toHaveLength(1);
    });

    it('should terminate excess nodeclaims when current count exceeds desired replicas', async () => {
      const t = await runningStaticBed(4, staticNodePool(2));
      expect((await reconcileStatic(t)).scaledDown).toHaveLength(2);
      expect(await activeClaims(t)).toHaveLength(2);
      expect((await poolClaims(t)).filter((c) => c.state === 'Draining')).toHaveLength(2);
    });

    it('should handle zero replicas by terminating all nodeclaims', async () => {
      const t = await runningStaticBed(3, staticNodePool(0));
      expect((await reconcileStatic(t)).scaledDown).toHaveLength(3);
      expect(await activeClaims(t)).toEqual([]);
      await settleNodes(t);
      expect(await poolClaims(t)).toEqual([]);
      expect(await t.cloud.list()).toEqual([]);
    });

    it('should handle no active nodeclaims gracefully', async () => {
      const t = await runningStaticBed(0, staticNodePool(0));
      const result = await reconcileStatic(t);
      expect(result.scaledDown).toEqual([]);
      expect(await poolClaims(t)).toEqual([]);
    });

    describe('Failing Scenarios', () => {
      it('should return error when nodeclaim deletion fails', async () => {
        const t = await runningStaticBed(3, staticNodePool(1));
        const store = t.deps.store;
        t.deps.store = Object.assign(Object.create(store), {
          transition: async () => {
            throw new Error('simulated error deleting nodeclaims');
          },
        });
        // The pass fails (its message is redelivered); no claim was marked for deletion.
        await expect(reconcileStatic(t)).rejects.toThrow('deleting nodeclaims');
        t.deps.store = store;
        expect((await activeClaims(t)).length).toBeGreaterThan(1);
        expect(await activeClaims(t)).toHaveLength(3);
      });
    });

    describe('Deprovision Candidate Selection', () => {
      it('should prioritize nodeclaims that have unresolved providerID', async () => {
        const t = await runningStaticBed(2, staticNodePool(2));
        const resolved = await activeNames(t);
        // Two claims written but never launched (no instance: CreateFleet failed or has not run yet).
        const at = new Date(t.clock.now()).toISOString();
        for (const name of ['static-unres1', 'static-unres2']) {
          await t.store.create(
            nodeClaim({
              name,
              cluster: 'test',
              nodePool: 'static',
              labels: { 'karpenter.sh/nodepool': 'static' },
              nominatedPods: [],
              requests: {},
              createdAt: at,
              stateTimes: { Pending: at },
            }),
          );
        }
        expect(await poolClaims(t)).toHaveLength(4);
        expect((await reconcileStatic(t)).scaledDown?.sort()).toEqual(['static-unres1', 'static-unres2']);
        const left = await activeClaims(t);
        expect(left.map((c) => c.name).sort()).toEqual(resolved);
        expect(left.every((c) => c.instanceId)).toBe(true);
      });

      it('should prioritize empty nodes (with only daemonset pods) for termination', async () => {
        const t = await runningStaticBed(4, staticNodePool(2));
        const n = await nodes(t);
        n.forEach((c, i) => {
          podOn(
            t,
            c,
            `pod-${i}`,
            i % 2 === 0 ? { namespace: 'kube-system', owner: 'DaemonSet' } : { namespace: 'default' },
          );
        });
        await reconcileStatic(t);
        expect(await activeNames(t)).toEqual([n[1]?.name, n[3]?.name].sort());
        expect((await poolClaims(t)).filter((c) => c.state === 'Draining')).toHaveLength(2);
      });

      it('should terminate non-empty nodes when empty nodes are insufficient', async () => {
        const t = await runningStaticBed(4, staticNodePool(1));
        const n = await nodes(t);
        podOn(t, n[0] as NodeClaim, 'pod-1');
        podOn(t, n[2] as NodeClaim, 'pod-2');
        expect((await reconcileStatic(t)).scaledDown).toHaveLength(3);
        const left = await activeClaims(t);
        expect(left).toHaveLength(1);
        expect([n[0]?.name, n[2]?.name]).toContain(left[0]?.name);
      });

      describe('disruption cost ordering', () => {
        /** Karpenter's eight nodes: two each of low (one pod), high (two pods), dnd (a do-not-disrupt pod) and ds
         * (a DaemonSet pod only), in that order. */
        async function eight(replicas: number): Promise<{ t: Testbed; names: string[] }> {
          const t = await runningStaticBed(8, staticNodePool(replicas));
          const n = await nodes(t);
          const kinds = ['low', 'high', 'dnd', 'ds'];
          n.forEach((c, idx) => {
            const i = Math.floor(idx / 4);
            switch (kinds[idx % 4]) {
              case 'low':
                podOn(t, c, `system-pod-low-${i}`, { namespace: 'kube-system' });
                break;
              case 'high':
                podOn(t, c, `system-pod-high-${i}`, { namespace: 'kube-system' });
                podOn(t, c, `app-pod-high-${i}`);
                break;
              case 'dnd':
                podOn(t, c, `app-pod-dnd-${i}`, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
                break;
              default:
                podOn(t, c, `dmn-pod-${i}`, { namespace: 'kube-system', owner: 'DaemonSet' });
            }
          });
          return { t, names: n.map((c) => c.name) };
        }

        describe('scales down in disruption cost order', () => {
          const entries: [string, number, number[]][] = [
            ['to 6 (drops DS-only first)', 6, [0, 1, 2, 4, 5, 6]],
            ['to 4 (drops low next)', 4, [1, 2, 5, 6]],
            ['to 2 (drops high next)', 2, [2, 6]],
            ['to 0 (drops do-not-disrupt last)', 0, []],
          ];
          it.each(entries)('%s', async (_, replicas, expectIdx) => {
            const { t, names } = await eight(replicas);
            expect((await reconcileStatic(t)).scaledDown).toHaveLength(8 - replicas);
            expect(await activeNames(t)).toEqual(expectIdx.map((i) => names[i]).sort());
            expect((await poolClaims(t)).filter((c) => c.state === 'Draining')).toHaveLength(8 - replicas);
          });
        });
      });
    });
  });
});
