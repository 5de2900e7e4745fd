// kubernetes-sigs/karpenter test/suites/regression/staticcapacity_test.go, case by case, through the real Lambda
// handlers on the local pipeline (docs/disruption.md, Static NodePools): a `kubectl apply` or `kubectl scale
// nodepool` reaches the forwarder's watch as NodePoolChanged, the provisioner keeps the pool at its replicas, and the
// Sweep tick drifts and never consolidates its nodes. Karpenter's "Eventually" waits are runUntil on virtual time;
// its "Consistently ... not exceed" checks sample the cluster after every moment the pipeline settles.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import type { NodePool } from '../../shared/api/karpenter';
import type { Pod, Taint } from '../../shared/api/kube';
import { LabelNodePool } from '../../shared/api/labels';
import { LIVE_STATES, type NodeClaim } from '../../shared/api/nodeclaim';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';
import { MINUTE } from '../../testkit/repair';
import { pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

interface StaticOptions {
  name?: string;
  limits?: Record<string, string>;
  budgets?: { nodes: string }[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: Taint[];
}

/** Karpenter's suite NodePool (the bed's types) with `replicas`; undefined leaves it dynamic. */
function pool(replicas: number | undefined, o: StaticOptions = {}): NodePool {
  const base = testNodePool(o.name ?? 'default');
  const metadata = {
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.annotations ? { annotations: o.annotations } : {}),
  };
  return {
    ...base,
    spec: {
      ...base.spec,
      ...(replicas === undefined ? {} : { replicas }),
      ...(o.limits ? { limits: o.limits } : {}),
      ...(o.budgets ? { disruption: { ...base.spec.disruption, budgets: o.budgets } } : {}),
      template: {
        ...base.spec.template,
        ...(Object.keys(metadata).length ? { metadata } : {}),
        spec: { ...base.spec.template.spec, ...(o.taints ? { taints: o.taints } : {}) },
      },
    },
  };
}

/** Every live claim of the pool, draining ones included (Karpenter's NodeClaim list, deleting ones included). */
async function claims(pipe: LocalPipeline, name = 'default'): Promise<NodeClaim[]> {
  return (await pipe.store.list({ states: LIVE_STATES })).filter((c) => c.nodePool === name);
}

const nodesOf = async (pipe: LocalPipeline, name = 'default') =>
  (await pipe.sim.listNodes()).filter((n) => n.metadata.labels?.[LabelNodePool] === name);

/** Karpenter's EventuallyExpectInitializedNodeCount("==", n) and EventuallyExpectCreatedNodeClaimCount("==", n):
 * exactly n claims, all initialized, and n nodes. */
const settledAt =
  (pipe: LocalPipeline, n: number, name = 'default') =>
  async () => {
    const list = await claims(pipe, name);
    return (
      list.length === n && list.every((c) => c.state === 'Initialized') && (await nodesOf(pipe, name)).length === n
    );
  };

/** Runs until `done`, recording the most claims of the pool alive at once (Karpenter's
 * ConsistentlyExpectNodeClaimCountNotExceed) and the most under disruption at once: a command in flight or draining,
 * the nodes Karpenter's ConsistentlyExpectDisruptionsUntilNoneLeft counts by their disrupted taint. */
async function watch(pipe: LocalPipeline, done: () => Promise<boolean>, limitMs: number, name = 'default') {
  let most = 0;
  let mostDisrupting = 0;
  const ok = await pipe.runUntil(async () => {
    const list = await claims(pipe, name);
    most = Math.max(most, list.length);
    mostDisrupting = Math.max(
      mostDisrupting,
      list.filter((c) => c.state === 'Draining' || c.disruption?.phase !== undefined).length,
    );
    return done();
  }, limitMs);
  return { ok, most, mostDisrupting };
}

const noFailures = (pipe: LocalPipeline) => {
  expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
};

describe('StaticCapacity', () => {
  describe('Provisioning', () => {
    it('should create static NodeClaims to meet desired replicas', async () => {
      p = await pipeline({ objects: [pool(10), testNodeClass()] });
      const pipe = p;
      expect(await pipe.runUntil(settledAt(pipe, 10), 10 * MINUTE)).toBe(true);
      pipe.forwarder.upsert(pool(15));
      expect(await pipe.runUntil(settledAt(pipe, 15), 10 * MINUTE)).toBe(true);
      const nodes = await pipe.sim.listNodes();
      expect(nodes).toHaveLength(15);
      for (const n of nodes) expect(n.metadata.labels?.[LabelNodePool]).toBe('default');
      noFailures(pipe);
    }, 120_000);

    it('should create static NodeClaim propagating all the NodePool spec details', async () => {
      const taints: Taint[] = [
        { key: 'custom-taint', effect: 'NoSchedule', value: 'custom-value' },
        { key: 'other-custom-taint', effect: 'NoExecute', value: 'other-custom-value' },
      ];
      p = await pipeline({
        objects: [
          pool(1, {
            annotations: { 'custom-annotation': 'custom-value' },
            labels: { 'custom-label': 'custom-value' },
            taints,
          }),
          testNodeClass(),
        ],
      });
      const pipe = p;
      expect(await pipe.runUntil(settledAt(pipe, 1), 10 * MINUTE)).toBe(true);
      const [node] = await pipe.sim.listNodes();
      expect(node?.metadata.annotations).toMatchObject({ 'custom-annotation': 'custom-value' });
      expect(node?.metadata.labels).toMatchObject({ 'custom-label': 'custom-value' });
      expect(node?.spec?.taints).toEqual(expect.arrayContaining(taints));
      noFailures(pipe);
    });

    it('should respect node limits when provisioning', async () => {
      p = await pipeline({ objects: [pool(10, { limits: { nodes: '5' } }), testNodeClass()] });
      const pipe = p;
      // Five minutes of Karpenter's Consistently: the pool never has more than 5 claims.
      const w = await watch(pipe, async () => false, 5 * MINUTE);
      expect(w.most).toBe(5);
      expect(await pipe.runUntil(settledAt(pipe, 5), 5 * MINUTE)).toBe(true);
      noFailures(pipe);
    });
  });

  describe('Deprovisioning', () => {
    async function threeNodes(): Promise<LocalPipeline> {
      p = await pipeline({ objects: [pool(3), testNodeClass()] });
      expect(await p.runUntil(settledAt(p, 3), 10 * MINUTE)).toBe(true);
      return p;
    }

    it('should scale down to zero', async () => {
      const pipe = await threeNodes();
      pipe.forwarder.upsert(pool(0));
      expect(await pipe.runUntil(settledAt(pipe, 0), 10 * MINUTE)).toBe(true);
      expect(await pipe.sim.listNodes()).toEqual([]);
      expect((await pipe.cloud.list()).filter((i) => i.state !== 'terminated')).toEqual([]);
      noFailures(pipe);
    });

    it('should terminate empty nodes first, then nodes with least cost, then respect do-not-disrupt', async () => {
      const pipe = await threeNodes();
      pipe.forwarder.upsert(pool(5));
      expect(await pipe.runUntil(settledAt(pipe, 5), 10 * MINUTE)).toBe(true);
      const nodes = (await nodesOf(pipe)).map((n) => n.metadata.name);
      // Two plain pods on the first two nodes, a do-not-disrupt pod on the third (bound, as Karpenter's test sets
      // spec.nodeName).
      const [n0, n1, n2] = nodes;
      if (!n0 || !n1 || !n2) throw new Error('fewer than three nodes');
      pipe.forwarder.addPod(makePod('pod-0', { cpu: '100m', nodeName: n0 }));
      pipe.forwarder.addPod(makePod('pod-1', { cpu: '100m', nodeName: n1 }));
      pipe.forwarder.addPod(
        makePod('dnd-0', { cpu: '100m', nodeName: n2, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
      );

      pipe.forwarder.upsert(pool(3));
      expect(await pipe.runUntil(settledAt(pipe, 3), 10 * MINUTE)).toBe(true);
      // The two empty nodes went; the nodes with pods and do-not-disrupt stay.
      expect((await nodesOf(pipe)).map((n) => n.metadata.name).sort()).toEqual([n0, n1, n2].sort());

      pipe.forwarder.upsert(pool(1));
      expect(await pipe.runUntil(settledAt(pipe, 1), 10 * MINUTE)).toBe(true);
      // The node with the do-not-disrupt pod is the one left.
      expect((await nodesOf(pipe)).map((n) => n.metadata.name)).toEqual([n2]);
      noFailures(pipe);
    });

    it('should handle graceful pod eviction during scale down', async () => {
      const pipe = await threeNodes();
      // A two-replica deployment, one pod per node: each pod's anti-affinity keeps them apart at first.
      for (let i = 0; i < 2; i++) pipe.forwarder.addPod(makePod(`test-${i}`, { cpu: '100m', labels: { app: 'test' } }));
      const healthy = async () =>
        (await pipe.sim.listPods()).filter((x) => x.metadata.labels?.app === 'test' && x.spec.nodeName).length === 2;
      expect(await pipe.runUntil(healthy, 10 * MINUTE)).toBe(true);

      pipe.forwarder.upsert(pool(1));
      expect(await pipe.runUntil(async () => (await settledAt(pipe, 1)()) && (await healthy()), 10 * MINUTE)).toBe(
        true,
      );
      // Both pods run on the one node left: evicted, recreated by their controller and bound there.
      const [last] = await nodesOf(pipe);
      const pods = (await pipe.sim.listPods()).filter((x) => x.metadata.labels?.app === 'test');
      expect(pods.map((x) => x.spec.nodeName)).toEqual([last?.metadata.name, last?.metadata.name]);
      noFailures(pipe);
    });
  });

  describe('Drift', () => {
    /** Ten nodes, then the template's annotation changes (with `o`'s budgets and limits): every node drifts. */
    async function driftTen(o: StaticOptions) {
      p = await pipeline({ objects: [pool(10), testNodeClass()] });
      const pipe = p;
      expect(await pipe.runUntil(settledAt(pipe, 10), 10 * MINUTE)).toBe(true);
      const before = new Set((await claims(pipe)).map((c) => c.name));
      pipe.forwarder.upsert(pool(10, { ...o, annotations: { test: 'annotation' } }));
      const replaced = async () =>
        (await settledAt(pipe, 10)()) && (await claims(pipe)).every((c) => !before.has(c.name));
      const w = await watch(pipe, replaced, 60 * MINUTE);
      expect(w.ok).toBe(true);
      const drifted = (await pipe.store.list()).filter((c) => before.has(c.name));
      expect(drifted.map((c) => c.disruption?.cause)).toEqual(Array(10).fill('Drifted'));
      for (const n of await nodesOf(pipe)) expect(n.metadata.annotations).toMatchObject({ test: 'annotation' });
      noFailures(pipe);
      return w;
    }

    it('should replace drifted nodes', async () => {
      // Karpenter's test allows up to 10 at a time; driftTen checks all 10 were replaced for drift.
      await driftTen({});
    }, 180_000);

    it('should handle drift with node limits when budget allows', async () => {
      // A budget of 4, but limits.nodes 12 leaves room for 2 replacements at a time.
      const w = await driftTen({ budgets: [{ nodes: '4' }], limits: { nodes: '12' } });
      expect(w.mostDisrupting).toBe(2);
      expect(w.most).toBeLessThanOrEqual(12);
    }, 180_000);

    it('should handle drift with node limits when budget restricts', async () => {
      // limits.nodes 15 leaves room for 5, but the budget allows 2.
      const w = await driftTen({ budgets: [{ nodes: '2' }], limits: { nodes: '15' } });
      expect(w.mostDisrupting).toBe(2);
      expect(w.most).toBeLessThanOrEqual(12);
    }, 180_000);
  });

  describe('Dynamic NodeClaim Interaction', () => {
    it('should provision dynamic nodeclaims when static nodeclaims cant satisfy pod constraints', async () => {
      const label = { app: 'large-app' };
      const large = (i: number): Pod => {
        const pod = makePod(`large-app-${i}`, {
          cpu: '100m',
          labels: label,
          annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        });
        const selector = { matchLabels: label };
        pod.spec.topologySpreadConstraints = [
          {
            maxSkew: 1,
            topologyKey: 'kubernetes.io/hostname',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: selector,
          },
        ];
        pod.spec.affinity = {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: 'kubernetes.io/hostname', labelSelector: selector },
            ],
          },
        };
        return pod;
      };
      p = await pipeline({
        objects: [
          pool(2, { name: 'static', taints: [{ key: 'static', effect: 'NoExecute' }] }),
          pool(undefined, { name: 'dynamic-nodepool' }),
          testNodeClass(),
        ],
      });
      const pipe = p;
      expect(await pipe.runUntil(settledAt(pipe, 2, 'static'), 10 * MINUTE)).toBe(true);
      for (let i = 0; i < 3; i++) pipe.forwarder.addPod(large(i));
      const healthy = async () =>
        (await pipe.sim.listPods()).filter((x) => x.metadata.labels?.app === 'large-app' && x.spec.nodeName).length ===
        3;
      expect(await pipe.runUntil(healthy, 10 * MINUTE)).toBe(true);
      expect(await pipe.runUntil(settledAt(pipe, 3, 'dynamic-nodepool'), 5 * MINUTE)).toBe(true);
      // The static pool still has exactly its 2 nodes; the 3 pods are on 3 dynamic nodes.
      expect(await claims(pipe, 'static')).toHaveLength(2);
      const dynamicNodes = new Set((await nodesOf(pipe, 'dynamic-nodepool')).map((n) => n.metadata.name));
      const podNodes = (await pipe.sim.listPods()).map((x) => x.spec.nodeName);
      expect(new Set(podNodes)).toEqual(dynamicNodes);
      expect(await pipe.sim.listNodes()).toHaveLength(5);
      noFailures(pipe);
    });
  });

  describe('Edge Cases', () => {
    it('should not go over limit during concurrent changes/executions', async () => {
      p = await pipeline({ objects: [pool(3, { limits: { nodes: '5' } }), testNodeClass()] });
      const pipe = p;
      expect(await pipe.runUntil(settledAt(pipe, 3), 10 * MINUTE)).toBe(true);
      // Drift (a template annotation) and a scale-up to 4 in one update.
      pipe.forwarder.upsert(pool(4, { limits: { nodes: '5' }, annotations: { 'drift-trigger': 'test-value' } }));
      const allNew = async () =>
        (await settledAt(pipe, 4)()) &&
        (await nodesOf(pipe)).every((n) => n.metadata.annotations?.['drift-trigger'] === 'test-value');
      const w = await watch(pipe, allNew, 30 * MINUTE);
      expect(w.ok).toBe(true);
      expect(w.most).toBeLessThanOrEqual(5);
      expect(await pipe.sim.listNodes()).toHaveLength(4);
      noFailures(pipe);
    }, 120_000);

    it('should handle NodePool deletion gracefully', async () => {
      p = await pipeline({ objects: [pool(3), testNodeClass()] });
      const pipe = p;
      expect(await pipe.runUntil(settledAt(pipe, 3), 10 * MINUTE)).toBe(true);
      // `kubectl delete nodepool`: the object carries its deletionTimestamp while finalizers hold it.
      const deleting = pool(3);
      deleting.metadata = { ...deleting.metadata, deletionTimestamp: new Date(pipe.clock.now()).toISOString() };
      pipe.forwarder.upsert(deleting);
      const w = await watch(pipe, settledAt(pipe, 0), 10 * MINUTE);
      expect(w.most).toBeLessThanOrEqual(3);
      expect(w.ok).toBe(true);
      expect(await pipe.sim.listNodes()).toEqual([]);
      noFailures(pipe);
    });
  });
});
