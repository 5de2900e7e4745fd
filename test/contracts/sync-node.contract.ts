// What syncNode does to a node, whatever API is behind it. The simulator is the test bed for the control plane, so
// it must behave as the real adapter does: the Kubernetes adapter runs this suite against test/fake-kube-api
// (sync-node.kube.test.ts), the simulated cluster directly (sync-node.sim.test.ts).
import { describe, expect, it } from 'vitest';
import type { Taint } from '../../shared/api/kube';
import type { ClusterApi } from '../../shared/ports';

export interface SyncNodeFixture {
  cluster: ClusterApi;
  /** Puts a node with exactly these labels and taints into the cluster. */
  addNode(name: string, labels: Record<string, string>, taints: Taint[]): void | Promise<void>;
  cleanup?(): void | Promise<void>;
}

const notReady: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
const unregistered: Taint = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' };
const startup: Taint = { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' };
const dedicated: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

export function syncNodeContract(name: string, makeFixture: () => Promise<SyncNodeFixture> | SyncNodeFixture) {
  async function withNode(labels: Record<string, string>, taints: Taint[]) {
    const f = await makeFixture();
    await f.addNode('n1', labels, taints);
    const read = async () => {
      const node = (await f.cluster.listNodes()).find((n) => n.metadata.name === 'n1');
      if (!node) throw new Error('node n1 is gone');
      return { labels: node.metadata.labels ?? {}, taints: node.spec.taints ?? [] };
    };
    return { f, read };
  }

  describe(`syncNode (${name})`, () => {
    it('merges labels and adds missing taints, leaving taints other actors own', async () => {
      const { f, read } = await withNode({ 'kubernetes.io/hostname': 'n1', team: 'old' }, [notReady, startup]);
      try {
        await f.cluster.syncNode('n1', {
          labels: { team: 'web', 'karpenter.sh/nodepool': 'default' },
          taints: [dedicated],
        });
        expect(await read()).toEqual({
          labels: { 'kubernetes.io/hostname': 'n1', team: 'web', 'karpenter.sh/nodepool': 'default' },
          taints: [notReady, startup, dedicated],
        });
      } finally {
        await f.cleanup?.();
      }
    });

    it('matches taints by key and effect: a present taint is neither duplicated nor rewritten', async () => {
      const { f, read } = await withNode({}, [{ key: 'dedicated', value: 'cpu', effect: 'NoSchedule' }]);
      try {
        await f.cluster.syncNode('n1', { labels: {}, taints: [dedicated] });
        await f.cluster.syncNode('n1', { labels: {}, taints: [dedicated] });
        expect((await read()).taints).toEqual([{ key: 'dedicated', value: 'cpu', effect: 'NoSchedule' }]);
      } finally {
        await f.cleanup?.();
      }
    });

    it('takes off only the taints it is told to remove', async () => {
      const { f, read } = await withNode({}, [unregistered, notReady, startup]);
      try {
        await f.cluster.syncNode('n1', { labels: { a: 'b' }, taints: [dedicated], removeTaints: [unregistered] });
        expect(await read()).toEqual({ labels: { a: 'b' }, taints: [notReady, startup, dedicated] });
        // Removing a taint that is not there changes nothing.
        await f.cluster.syncNode('n1', { labels: {}, taints: [], removeTaints: [unregistered] });
        expect((await read()).taints).toEqual([notReady, startup, dedicated]);
      } finally {
        await f.cleanup?.();
      }
    });

    it('takes off the labels it is told to remove, keeping any it also sets', async () => {
      const reserved = {
        'karpenter.sh/capacity-type': 'reserved',
        'karpenter.k8s.aws/capacity-reservation-id': 'cr-0a1',
        'karpenter.k8s.aws/capacity-reservation-type': 'default',
        team: 'web',
      };
      const { f, read } = await withNode(reserved, []);
      try {
        await f.cluster.syncNode('n1', {
          labels: { 'karpenter.sh/capacity-type': 'on-demand', team: 'web' },
          removeLabels: [
            'karpenter.k8s.aws/capacity-reservation-id',
            'karpenter.k8s.aws/capacity-reservation-type',
            'team',
          ],
          taints: [],
        });
        expect((await read()).labels).toEqual({ 'karpenter.sh/capacity-type': 'on-demand', team: 'web' });
      } finally {
        await f.cleanup?.();
      }
    });

    it("merges the NodeClaim's annotations into the node's, as Karpenter's registration does", async () => {
      const { f } = await withNode({}, []);
      try {
        const annotations = async () =>
          (await f.cluster.listNodes()).find((n) => n.metadata.name === 'n1')?.metadata.annotations ?? {};
        await f.cluster.syncNode('n1', {
          labels: {},
          annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
          taints: [],
        });
        await f.cluster.syncNode('n1', { labels: {}, annotations: { team: 'web' }, taints: [] });
        expect(await annotations()).toMatchObject({ 'karpenter.sh/do-not-disrupt': 'true', team: 'web' });
      } finally {
        await f.cleanup?.();
      }
    });
  });
}
