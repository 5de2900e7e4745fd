// What replaceStatus does to a NodePool or EC2NodeClass, whatever API is behind it. The simulator is the test bed for
// the status writer, so it must behave as the real adapter does; replace-status.test.ts runs this suite
// against KubeClusterApi on test/fake-kube-api and against SimCluster.
import { describe, expect, it } from 'vitest';
import type { EC2NodeClass, NodePool } from '../../shared/api/karpenter';
import type { EC2NodeClassStatus, NodePoolStatus } from '../../shared/api/status';
import type { ClusterApi } from '../../shared/ports';

export interface ReplaceStatusFixture {
  cluster: ClusterApi;
  /** Puts this NodePool or EC2NodeClass, status included, into the cluster. */
  add(object: NodePool | EC2NodeClass): void | Promise<void>;
  cleanup?(): void | Promise<void>;
}

const at = '2026-01-01T00:00:00.000Z';
const ready = (generation: number) => ({
  type: 'Ready',
  status: 'True' as const,
  reason: 'Ready',
  message: '',
  lastTransitionTime: at,
  observedGeneration: generation,
});

const pool = (status?: NodePoolStatus): NodePool => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'default', uid: 'np-uid', generation: 2 },
  spec: { weight: 10 } as NodePool['spec'],
  ...(status && { status }),
});

const nodeClass = (status?: EC2NodeClassStatus): EC2NodeClass => ({
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'default', uid: 'nc-uid', generation: 1 },
  spec: { role: 'KarpenterNodeRole' } as EC2NodeClass['spec'],
  ...(status && { status }),
});

const poolStatus: NodePoolStatus = { resources: { cpu: '4', memory: '16Gi', nodes: '2' }, conditions: [ready(2)] };
const classStatus: EC2NodeClassStatus = {
  subnets: [{ id: 'subnet-1', zone: 'us-east-1a' }],
  securityGroups: [{ id: 'sg-1' }],
  amis: [{ id: 'ami-1', requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }],
  conditions: [ready(1)],
};

export function replaceStatusContract(
  name: string,
  makeFixture: () => Promise<ReplaceStatusFixture> | ReplaceStatusFixture,
) {
  async function withFixture(objects: (NodePool | EC2NodeClass)[], test: (f: ReplaceStatusFixture) => Promise<void>) {
    const f = await makeFixture();
    try {
      for (const o of objects) await f.add(o);
      await test(f);
    } finally {
      await f.cleanup?.();
    }
  }

  describe(`replaceStatus (${name})`, () => {
    it('replaces a NodePool status whole: keys the new status lacks are gone, spec and metadata untouched', async () => {
      const old: NodePoolStatus = {
        resources: { cpu: '8', 'nvidia.com/gpu': '1', nodes: '3' },
        conditions: [{ ...ready(1), status: 'False', reason: 'NodeClassNotReady' }],
        nodeClassObservedGeneration: 1,
      };
      await withFixture([pool(old)], async (f) => {
        expect(await f.cluster.replaceStatus({ kind: 'NodePool', name: 'default', status: poolStatus })).toBe(
          'replaced',
        );
        const [np] = await f.cluster.listNodePools();
        expect(np?.status).toEqual(poolStatus);
        expect(np?.metadata).toMatchObject({ name: 'default', uid: 'np-uid', generation: 2 });
        expect(np?.spec).toEqual({ weight: 10 });
      });
    });

    it('sets the status of an EC2NodeClass that had none, leaving a NodePool of the same name alone', async () => {
      await withFixture([nodeClass(), pool()], async (f) => {
        const update = { kind: 'EC2NodeClass', name: 'default', status: classStatus } as const;
        expect(await f.cluster.replaceStatus(update)).toBe('replaced');
        const [nc] = await f.cluster.listNodeClasses();
        expect(nc?.status).toEqual(classStatus);
        expect(nc?.metadata).toMatchObject({ name: 'default', generation: 1 });
        expect((await f.cluster.listNodePools())[0]?.status).toBeUndefined();
      });
    });

    it('answers gone for an unknown name and creates nothing', async () => {
      await withFixture([pool(poolStatus)], async (f) => {
        expect(await f.cluster.replaceStatus({ kind: 'NodePool', name: 'deleted', status: poolStatus })).toBe('gone');
        expect(await f.cluster.replaceStatus({ kind: 'EC2NodeClass', name: 'default', status: classStatus })).toBe(
          'gone',
        );
        expect((await f.cluster.listNodePools()).map((o) => o.metadata.name)).toEqual(['default']);
        expect(await f.cluster.listNodeClasses()).toEqual([]);
      });
    });
  });
}
