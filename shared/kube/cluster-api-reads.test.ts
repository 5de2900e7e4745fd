// KubeClusterApi reads against the fake API server: field selectors, pagination and 410 restarts, trimming, and
// the path of every collection the engine lists.
import { beforeEach, describe, expect, it } from 'vitest';
import { kubeStatus } from '../../test/fake-kube-api/server';
import { node, pod, useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import type { KubeClusterApi } from './cluster-api';

const bed = useKubeClusterBed();
const { api } = bed;
let cluster: KubeClusterApi;
beforeEach(() => {
  cluster = bed.cluster;
});

describe('reads', () => {
  it('lists pending pods with field selectors, paginated, keeping only unschedulable non-daemonset pods', async () => {
    api.put('pods', pod('a'));
    api.put('pods', pod('b'));
    api.put(
      'pods',
      pod('ds', { metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'x' }] } }),
    );
    api.put(
      'pods',
      pod('gated', { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } }),
    );
    api.put('pods', pod('bound', { spec: { nodeName: 'n1' }, status: { phase: 'Running', conditions: [] } }));

    const pending = await cluster.listPendingPods();
    expect(pending.map((p) => p.metadata.name)).toEqual(['a', 'b']);

    const calls = api.requestsTo('GET', '/api/v1/pods');
    expect(calls).toHaveLength(2); // 4 matching pods, pages of 2
    for (const c of calls) {
      expect(c.query.get('fieldSelector')).toBe('spec.nodeName=,status.phase=Pending');
      expect(c.query.get('limit')).toBe('2');
      expect(c.headers.authorization).toMatch(/^Bearer token-\d+$/);
    }
    expect(calls[0]?.query.has('continue')).toBe(false);
    expect(calls[1]?.query.get('continue')).toBeTruthy();
  });

  it('restarts a list whose continue token expired (410 Gone)', async () => {
    for (const name of ['a', 'b', 'c']) api.put('nodes', node(name));
    let expired = false;
    api.override((r) => {
      if (r.query.has('continue') && !expired) {
        expired = true;
        return { status: 410, body: kubeStatus(410, 'Expired', 'The provided continue parameter is too old') };
      }
      return undefined;
    });
    expect((await cluster.listNodes()).map((n) => n.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(api.requestsTo('GET', '/api/v1/nodes').map((r) => r.query.has('continue'))).toEqual([
      false,
      true,
      false,
      true,
    ]);
  });

  it('trims pods to the fields the engine reads', async () => {
    api.put('pods', pod('a'));
    const [p] = await cluster.listPendingPods();
    expect(p).toEqual({
      metadata: {
        name: 'a',
        namespace: 'default',
        uid: 'uid-a',
        resourceVersion: expect.any(String),
        creationTimestamp: '2026-01-01T00:00:00.000Z',
        annotations: { keep: 'me' },
      },
      spec: {
        containers: [
          {
            name: 'app',
            resources: { requests: { cpu: '100m', memory: '128Mi' } },
            ports: [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }],
          },
        ],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'd' } }],
      },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    });
  });

  it('lists bound pods, all or on one node, excluding terminal ones', async () => {
    api.put('pods', pod('x', { spec: { nodeName: 'n1' }, status: { phase: 'Running' } }));
    api.put('pods', pod('y', { spec: { nodeName: 'n2' }, status: { phase: 'Running' } }));
    api.put('pods', pod('done', { spec: { nodeName: 'n1' }, status: { phase: 'Succeeded' } }));
    expect((await cluster.listPods()).map((p) => p.metadata.name)).toEqual(['x', 'y']);
    expect((await cluster.listPods({ nodeName: 'n1' })).map((p) => p.metadata.name)).toEqual(['x']);
    const selectors = api.requestsTo('GET', '/api/v1/pods').map((r) => r.query.get('fieldSelector'));
    expect(selectors).toContain('spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed');
    expect(selectors).toContain('spec.nodeName=n1,status.phase!=Succeeded,status.phase!=Failed');
  });

  it('lists and trims nodes', async () => {
    api.put('nodes', node('n1', { taints: [{ key: 'k', effect: 'NoSchedule' }] }));
    const [n] = await cluster.listNodes();
    expect(api.requests[0]?.path).toBe('/api/v1/nodes');
    expect(api.requests[0]?.query.get('limit')).toBe('2');
    expect(n).toEqual({
      metadata: {
        name: 'n1',
        uid: 'uid-n1',
        labels: { 'kubernetes.io/hostname': 'n1' },
        resourceVersion: expect.any(String),
      },
      spec: { providerID: 'aws:///us-east-1a/i-n1', taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '2', memory: '8Gi', pods: '29' },
        allocatable: { cpu: '1930m', memory: '6903Mi', pods: '29' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
        nodeInfo: { kubeletVersion: 'v1.31.0' },
      },
    });
  });

  it('reads every other collection from its path', async () => {
    api.put('daemonsets', {
      metadata: { name: 'ds', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '50m' } } }] },
        },
      },
    });
    api.put('poddisruptionbudgets', {
      metadata: { name: 'pdb', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { a: 'b' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1, observedGeneration: 3 },
    });
    api.put('persistentvolumeclaims', {
      metadata: { name: 'd', namespace: 'default' },
      spec: { storageClassName: 'gp3', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
      status: { phase: 'Bound', capacity: { storage: '10Gi' } },
    });
    api.put('persistentvolumes', {
      metadata: { name: 'pv' },
      spec: {
        storageClassName: 'gp3',
        claimRef: { namespace: 'default', name: 'd', uid: 'u' },
        csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1', fsType: 'ext4' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }] },
            ],
          },
        },
      },
    });
    api.put('storageclasses', {
      metadata: { name: 'gp3' },
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer',
      reclaimPolicy: 'Delete',
    });
    api.put('namespaces', {
      metadata: { name: 'default', labels: { team: 'a' } },
      spec: { finalizers: ['kubernetes'] },
    });
    api.put('nodepools', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'default', uid: 'np', managedFields: [{}] },
      spec: { weight: 10 },
      status: { resources: {} },
    });
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default' },
      spec: { role: 'R' },
    });

    const [ds] = await cluster.listDaemonSets();
    expect(ds?.spec.template.spec.containers).toEqual([{ name: 'c', resources: { requests: { cpu: '50m' } } }]);
    const [pdb] = await cluster.listPodDisruptionBudgets();
    expect(pdb?.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const [pvc] = await cluster.listPersistentVolumeClaims();
    expect(pvc?.spec).toEqual({
      storageClassName: 'gp3',
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '10Gi' } },
    });
    expect(pvc?.status).toEqual({ phase: 'Bound' });
    const [pv] = await cluster.listPersistentVolumes();
    expect(pv?.spec.csi).toEqual({ driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' });
    expect(pv?.spec.claimRef).toEqual({ namespace: 'default', name: 'd' });
    const [sc] = await cluster.listStorageClasses();
    expect(sc).toMatchObject({
      kind: 'StorageClass',
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
    const [ns] = await cluster.listNamespaces();
    expect(ns).toEqual({
      kind: 'Namespace',
      metadata: { name: 'default', labels: { team: 'a' }, resourceVersion: expect.any(String) },
    });
    const [np] = await cluster.listNodePools();
    expect(np).toEqual({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'default', uid: 'np' },
      spec: { weight: 10 },
      status: { resources: {} },
    });
    const [nc] = await cluster.listNodeClasses();
    expect(nc?.spec).toEqual({ role: 'R' });

    expect(api.requests.map((r) => r.path)).toEqual([
      '/apis/apps/v1/daemonsets',
      '/apis/policy/v1/poddisruptionbudgets',
      '/api/v1/persistentvolumeclaims',
      '/api/v1/persistentvolumes',
      '/apis/storage.k8s.io/v1/storageclasses',
      '/api/v1/namespaces',
      '/apis/karpenter.sh/v1/nodepools',
      '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
    ]);
    for (const r of api.requests) {
      expect(r.method).toBe('GET');
      expect(r.query.get('limit')).toBe('2');
    }
  });
});
