// kubernetes-sigs/karpenter pkg/controllers/static/provisioning/suite_test.go, case by case, on the test bed with the
// real provisioning pass (`provision`, which runs Karpless's static scale-up: shared/controllers/static-pools.ts).
// Karpenter's test reconciles one controller; here each reconcile is a provisioning pass, which reads the store and
// the cluster afresh, so Karpenter's cluster-state counts (ExpectStateNodePoolCount) are the store's claims.
//
// Skipped by design:
// - "Helper Functions / should detect replica or status changes": Karpenter's event predicate deciding which NodePool
//   updates wake the controller. Karpless's forwarder sends NodePoolChanged for every NodePool change and each Sweep
//   tick runs a pass, and a pass re-reads everything, so there is no predicate to test.
// Where Karpless is stricter than Karpenter, the assertion says so: Karpenter's concurrent and unsynced reconciles may
// reach limits.nodes before its scale-down trims them back to replicas; Karpless's passes never pass replicas.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import { reconcileNodes } from '../../../shared/controllers/lifecycle';
import { createTestbed, staticNodePool } from '../../../testkit/bed';
import { poolClaims, reconcileStatic, runningStaticBed, settleNodes } from '../../../testkit/static-bed';

describe('Static Provisioning Controller', () => {
  describe('Reconcile', () => {
    it('should handle CreateNodeClaims errors gracefully', async () => {
      const t = createTestbed({ nodePool: staticNodePool(1) });
      const store = t.deps.store;
      t.deps.store = Object.assign(Object.create(store), {
        create: async () => {
          throw new Error('simulated error creating nodeclaims');
        },
      });
      // The pass fails (its message is redelivered) and writes nothing.
      await expect(reconcileStatic(t)).rejects.toThrow('creating nodeclaims');
      t.deps.store = store;
      expect(await poolClaims(t)).toEqual([]);
    });

    it('should return early if nodepool is not managed by cloud provider', async () => {
      // Karpless's "not managed": a pool left to Karpenter during a cut-over (clusters.yaml `nodePools`).
      const t = createTestbed({ nodePool: staticNodePool(1), config: { ownedNodePools: ['other'] } });
      const result = await reconcileStatic(t);
      expect(result.created).toEqual([]);
      expect(await poolClaims(t)).toEqual([]);
    });

    it('should return early if nodepool root condition is not true', async () => {
      const at = '2026-01-01T00:00:00Z';
      const pool: NodePool = {
        ...staticNodePool(1),
        status: {
          resources: {},
          conditions: [
            {
              type: 'ValidationSucceeded',
              status: 'False',
              reason: 'ValidationFailed',
              message: '',
              lastTransitionTime: at,
            },
            {
              type: 'Ready',
              status: 'False',
              reason: 'ValidationFailed',
              message: 'Validation failed',
              lastTransitionTime: at,
            },
          ],
        },
      };
      const t = createTestbed({ nodePool: pool });
      expect((await reconcileStatic(t)).created).toEqual([]);
      expect(await poolClaims(t)).toEqual([]);
    });

    it('should return early if nodepool is being deleted', async () => {
      const pool = staticNodePool(1);
      const t = createTestbed({
        nodePool: { ...pool, metadata: { ...pool.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } },
      });
      expect((await reconcileStatic(t)).created).toEqual([]);
      expect(await poolClaims(t)).toEqual([]);
    });

    it('should return early if nodepool replicas is nil', async () => {
      const t = createTestbed({ nodePool: staticNodePool(undefined) });
      expect((await reconcileStatic(t)).created).toEqual([]);
      expect(await poolClaims(t)).toEqual([]);
    });

    it('should return early if current node count exceeds desired replicas', async () => {
      const t = await runningStaticBed(2, staticNodePool(1));
      const result = await reconcileStatic(t);
      // No new claim: the surplus is the scale-down's (deprovisioning.test.ts).
      expect(result.created).toEqual([]);
      expect(await poolClaims(t)).toHaveLength(2);
    });

    it('should create nodeclaims when current node count is less than desired replicas', async () => {
      const t = createTestbed({ nodePool: staticNodePool(2) });
      const result = await reconcileStatic(t);
      expect(result.created).toHaveLength(2);
      const made = await poolClaims(t);
      expect(made).toHaveLength(2);
      for (const c of made) {
        expect(c.nodeClass).toBe(t.nodePool.spec.template.spec.nodeClassRef.name);
        expect(c.labels).toMatchObject({ 'karpenter.sh/nodepool': 'static' });
      }
    });

    it('should create additional nodeclaims to reach desired replicas', async () => {
      const t = await runningStaticBed(1, staticNodePool(3));
      expect((await reconcileStatic(t)).created).toHaveLength(2);
      expect(await poolClaims(t)).toHaveLength(3);
    });

    it('should not create additional nodeclaims', async () => {
      // Three claims at different stages (not launched, launched without a node, registered): passes in between
      // never add a fourth.
      const t = createTestbed({ nodePool: staticNodePool(3), registrationDelayMs: 60_000 });
      const states = new Set<string>();
      for (let i = 0; i < 10; i++) {
        await reconcileStatic(t);
        await t.pump();
        await reconcileNodes(t.deps);
        for (const c of await poolClaims(t)) states.add(c.state);
        expect(await poolClaims(t)).toHaveLength(3);
        t.clock.advance(10_000);
      }
      expect([...states]).toEqual(expect.arrayContaining(['Launched', 'Registered', 'Initialized']));
      expect(await t.store.list()).toHaveLength(3);
    });

    it('should not create additional nodeclaims when node limits are reached', async () => {
      const t = await runningStaticBed(1, staticNodePool(3, { limits: { nodes: '1' } }));
      expect((await reconcileStatic(t)).created).toEqual([]);
      expect(await poolClaims(t)).toHaveLength(1);
    });

    it('should reserve nodepool nodecount during provisioning and release after', async () => {
      // Karpless keeps no reservation between passes: the limit is checked against the store on every pass.
      const t = createTestbed({ nodePool: staticNodePool(3, { limits: { nodes: '10' } }) });
      expect((await reconcileStatic(t)).created).toHaveLength(3);
      await settleNodes(t);
      t.cluster.upsert(staticNodePool(15, { limits: { nodes: '10' } }));
      expect((await reconcileStatic(t)).created).toHaveLength(7);
      expect(await poolClaims(t)).toHaveLength(10);
      expect((await reconcileStatic(t)).created).toEqual([]);
      expect(await poolClaims(t)).toHaveLength(10);
    });

    it('should handle zero replicas', async () => {
      const t = createTestbed({ nodePool: staticNodePool(0) });
      expect((await reconcileStatic(t)).created).toEqual([]);
      expect(await poolClaims(t)).toEqual([]);
    });

    it('should respect nodepool template specifications', async () => {
      const requirements = [
        { key: 'karpenter.k8s.aws/instance-category', operator: 'In' as const, values: ['c', 'm'], minValues: 2 },
        { key: 'karpenter.k8s.aws/instance-family', operator: 'In' as const, values: ['c5', 'm5'], minValues: 2 },
        { key: 'karpenter.k8s.aws/instance-cpu', operator: 'In' as const, values: ['16'] },
        { key: 'karpenter.k8s.aws/instance-hypervisor', operator: 'In' as const, values: ['nitro'] },
        // Karpenter canonicalizes Gt 2 to Gte 3; Karpless has no Gte operator and keeps Gt 2, the same set of values.
        { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt' as const, values: ['2'] },
        { key: 'topology.kubernetes.io/zone', operator: 'In' as const, values: ['us-east-1a', 'us-east-1b'] },
        { key: 'kubernetes.io/arch', operator: 'In' as const, values: ['amd64', 'arm64'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In' as const, values: ['on-demand', 'spot'] },
      ];
      const base = staticNodePool(4, {
        labels: { 'custom-label': 'custom-value' },
        annotations: { 'custom-annotation': 'custom-value' },
      });
      const pool: NodePool = {
        ...base,
        spec: { ...base.spec, template: { ...base.spec.template, spec: { ...base.spec.template.spec, requirements } } },
      };
      const t = createTestbed({ nodePool: pool });
      expect((await reconcileStatic(t)).created).toHaveLength(4);
      const made = await poolClaims(t);
      expect(made).toHaveLength(4);
      const [nc] = made as [NodeClaim];
      expect(nc.labels).toMatchObject({ 'custom-label': 'custom-value' });
      expect(nc.annotations).toMatchObject({ 'custom-annotation': 'custom-value' });
      expect(nc.requirements).toEqual(expect.arrayContaining(requirements));
      // Every type it may launch is a 4xlarge c5 or m5.
      expect(nc.instanceTypeOptions.length).toBeGreaterThan(1);
      for (const type of nc.instanceTypeOptions) expect(type).toMatch(/^(c5|m5)\.4xlarge$/);
    });

    it('should handle large replica counts', async () => {
      const t = createTestbed({ nodePool: staticNodePool(1000) });
      await reconcileStatic(t);
      expect(await poolClaims(t)).toHaveLength(1000);
      expect((await reconcileStatic(t)).created).toEqual([]);
      expect(await poolClaims(t)).toHaveLength(1000);
    });

    it('handles concurrent reconciliation without exceeding NodePool limits', async () => {
      const t = createTestbed({ nodePool: staticNodePool(5, { limits: { nodes: '10' } }) });
      // 50 passes at once, from the same state: each slot is written by one of them.
      await Promise.all(Array.from({ length: 50 }, () => reconcileStatic(t)));
      expect((await t.store.list()).length).toBeLessThanOrEqual(10);
      expect(await poolClaims(t)).toHaveLength(5);
      expect((await t.cloud.list()).length).toBe(5);
    });

    it('should wait for cluster to be synced and not over provision', async () => {
      // Karpless has no cache to sync: every pass reads the store. Its stale state is a pass that read the store
      // before another pass wrote: pass A stops after writing two of its five claims, pass B reads those two and
      // writes the other three, then A writes its last three. A finds B's claims, which it never saw, and takes back
      // its own surplus before launching anything.
      const t = createTestbed({ nodePool: staticNodePool(5, { limits: { nodes: '10' } }) });
      const store = t.deps.store;
      let creates = 0;
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      t.deps.store = Object.assign(Object.create(store), {
        create: async (claim: NodeClaim) => {
          const made = await store.create(claim);
          if (++creates === 2) await gate;
          return made;
        },
      });
      const a = reconcileStatic(t);
      while (creates < 2) await new Promise((resolve) => setImmediate(resolve));
      const b = await reconcileStatic(t);
      expect(b.created).toHaveLength(3);
      expect((await poolClaims(t)).length).toBeLessThanOrEqual(10);
      release();
      const passA = await a;
      expect(passA.withdrawn).toHaveLength(3);
      expect(passA.created).toHaveLength(2);
      expect(await poolClaims(t)).toHaveLength(5);
      expect((await t.cloud.list()).length).toBe(5);
      // The replan A asked for finds the pool whole.
      const replans = await t.pump();
      expect(replans.length).toBeGreaterThan(0);
      expect(await poolClaims(t)).toHaveLength(5);
    });
  });
});
