// Mirrors Karpenter's pkg/controllers/static/provisioning and static/deprovisioning suites, and its disruption
// rule that static NodePools are never consolidated, on the simulated world with the real use-cases.
import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, testNodePool } from '../../testkit/bed';
import { nodeClaim } from '../../testkit/builders';
import type { NodePool } from '../api/karpenter';
import { LIVE_STATES } from '../api/nodeclaim';
import { disruptionSweep } from './disruption';
import { reconcileNodes } from './lifecycle';
import { provision } from './provision';
import { surplusOrder } from './static-scale-down';

const staticPool = (replicas: number, limits?: Record<string, string>): NodePool => {
  const base = testNodePool('static');
  return { ...base, spec: { ...base.spec, replicas, ...(limits ? { limits } : {}) } };
};

async function live(t: ReturnType<typeof createTestbed>) {
  return (await t.store.list({ states: LIVE_STATES })).filter((c) => c.state !== 'Draining');
}

async function converge(t: ReturnType<typeof createTestbed>, ms = 120_000): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += 5_000) {
    await provision(t.deps, { trigger: 'test' });
    await t.pump();
    await reconcileNodes(t.deps);
    t.clock.advance(5_000);
  }
  await t.pump();
}

describe('Static NodePools', () => {
  describe('provisioning', () => {
    it('should create nodeclaims to match replicas without any pending pods', async () => {
      const t = createTestbed({ nodePool: staticPool(3) });
      const result = await provision(t.deps, { trigger: 'NodePoolChanged' });
      expect(result.created).toHaveLength(3);
      expect(result.launched).toHaveLength(3);
      const claims = await live(t);
      expect(claims.map((c) => c.nominatedPods.length)).toEqual([0, 0, 0]);
      // Cheapest type the pool allows comes first.
      expect(claims[0]?.instanceTypeOptions[0]).toBe('c5.large');
    });

    it('should not create more nodeclaims once replicas are met', async () => {
      const t = createTestbed({ nodePool: staticPool(2) });
      await provision(t.deps);
      const again = await provision(t.deps);
      expect(again.created).toEqual([]);
      expect(await live(t)).toHaveLength(2);
    });

    it('should not exceed limits.nodes', async () => {
      const t = createTestbed({ nodePool: staticPool(5, { nodes: '2' }) });
      await provision(t.deps);
      expect(await live(t)).toHaveLength(2);
    });

    it('should not provision nodes for pending pods on a static nodepool', async () => {
      const t = createTestbed({ nodePool: staticPool(0) });
      t.cluster.addPod(makePod('web-1', { cpu: '500m' }));
      const result = await provision(t.deps, { trigger: 'PodsPending' });
      expect(result.created).toEqual([]);
      expect(result.unschedulable).toHaveLength(1);
    });

    it('pods schedule onto the static nodes once they exist', async () => {
      const t = createTestbed({ nodePool: staticPool(1) });
      await converge(t, 60_000);
      t.cluster.addPod(makePod('web-1', { cpu: '500m' }));
      await converge(t, 30_000);
      expect(t.cluster.getPod('default/web-1')?.spec.nodeName).toBeDefined();
      expect(await live(t)).toHaveLength(1);
    });
  });

  describe('deprovisioning', () => {
    it('should scale down when replicas decrease, empty nodes first', async () => {
      const t = createTestbed({ nodePool: staticPool(3) });
      await converge(t, 60_000);
      t.cluster.addPod(makePod('web-1', { cpu: '500m' }));
      await converge(t, 30_000);
      const busyNode = t.cluster.getPod('default/web-1')?.spec.nodeName;
      t.cluster.upsert(staticPool(1));
      const result = await provision(t.deps, { trigger: 'NodePoolChanged' });
      expect(result.scaledDown).toHaveLength(2);
      await converge(t, 120_000);
      const left = await live(t);
      expect(left).toHaveLength(1);
      expect(left[0]?.nodeName).toBe(busyNode);
    });

    it('scales down with budgets of 0 but waits for PDBs', async () => {
      const pool = staticPool(2);
      const t = createTestbed({
        nodePool: {
          ...pool,
          spec: { ...pool.spec, disruption: { ...pool.spec.disruption, budgets: [{ nodes: '0' }] } },
        },
      });
      await converge(t, 60_000);
      t.cluster.upsert({
        ...pool,
        spec: { ...pool.spec, replicas: 1, disruption: { ...pool.spec.disruption, budgets: [{ nodes: '0' }] } },
      });
      const result = await provision(t.deps);
      expect(result.scaledDown).toHaveLength(1);
    });
  });

  describe('scale-down order', () => {
    let n = 0;
    const on = (node: string, annotations?: Record<string, string>) =>
      makePod(`${node}-${n++}`, { nodeName: node, ...(annotations ? { annotations } : {}) });
    const claim = (name: string) => nodeClaim({ name, nodeName: name, instanceId: `i-${name}` });

    it('ranks nodes with pods by eviction cost, as Karpenter does, not by pod count', () => {
      // One pod that is costly to evict (pod-deletion-cost) outweighs two ordinary ones.
      const costly = on('a', { 'controller.kubernetes.io/pod-deletion-cost': String(2 ** 30) });
      const pods = [costly, on('b'), on('b')];
      expect(surplusOrder([claim('a'), claim('b')], pods).map((c) => c.name)).toEqual(['b', 'a']);
    });

    it('does not count a node as empty when a DaemonSet pod on it is do-not-disrupt', () => {
      const ds = makePod('ds-1', {
        nodeName: 'a',
        owner: 'DaemonSet',
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      });
      const pods = [ds, on('b')];
      expect(surplusOrder([claim('a'), claim('b')], pods).map((c) => c.name)).toEqual(['b', 'a']);
    });
  });

  describe('disruption', () => {
    it('should not consolidate empty static nodes', async () => {
      const t = createTestbed({ nodePool: staticPool(2) });
      await converge(t, 60_000);
      t.clock.advance(10 * 60_000);
      const outcome = await disruptionSweep(t.deps);
      expect(outcome?.decided ?? []).toEqual([]);
      expect(await live(t)).toHaveLength(2);
    });
  });
});
