import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApi, kubeStatus } from '../../test/fake-kube-api/server';
import type { EC2NodeClassStatus, NodePoolStatus } from '../api/status';
import { buildKubeConfig } from '../aws/eks-auth/kubeconfig';
import { ClusterApiError } from '../errors';
import type { ClusterEvent } from '../ports';
import { KubeClusterApi } from './cluster-api';

const api = new FakeKubeApi();
let tokenCount = 0;
let cluster: KubeClusterApi;
let now = Date.UTC(2026, 0, 1);
const eventErrors: Error[] = [];

function makeCluster(pageSize = 2) {
  const kc = buildKubeConfig({
    cluster: 't',
    endpoint: api.url,
    tokens: { getToken: async () => `token-${++tokenCount}` },
  });
  return new KubeClusterApi(kc, {
    pageSize,
    timeoutMs: 2000,
    clock: { now: () => now },
    events: { burst: 3, perSecond: 1, dedupeWindowMs: 60_000 },
    onEventError: (_e, err) => eventErrors.push(err),
  });
}

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    creationTimestamp: '2026-01-01T00:00:00Z',
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'x'.repeat(1000), keep: 'me' },
    managedFields: [{ manager: 'kubectl' }],
    ...((extra.metadata as object) ?? {}),
  },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'nginx',
        env: [{ name: 'A', value: 'b' }],
        resources: { requests: { cpu: '100m', memory: '128Mi' } },
        ports: [{ containerPort: 80 }, { containerPort: 8080, hostPort: 8080, protocol: 'TCP' }],
      },
    ],
    volumes: [
      { name: 'tok', projected: { sources: [] } },
      { name: 'data', persistentVolumeClaim: { claimName: 'd' } },
    ],
    ...((extra.spec as object) ?? {}),
  },
  status: {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: 'long text' }],
    ...((extra.status as object) ?? {}),
  },
});

const node = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, uid: `uid-${name}`, labels: { 'kubernetes.io/hostname': name } },
  spec: { providerID: `aws:///us-east-1a/i-${name}`, ...extra },
  status: {
    capacity: { cpu: '2', memory: '8Gi', pods: '29' },
    allocatable: { cpu: '1930m', memory: '6903Mi', pods: '29' },
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' }],
    nodeInfo: { kubeletVersion: 'v1.31.0', osImage: 'AL2023' },
    images: [{ names: ['big'], sizeBytes: 1 }],
  },
});

beforeAll(async () => {
  await api.start();
});
afterAll(async () => {
  await api.stop();
});
beforeEach(() => {
  cluster = makeCluster();
});
afterEach(() => {
  api.requests.length = 0;
  api.clearOverrides();
  for (const r of ['pods', 'nodes', 'events', 'nodepools', 'ec2nodeclasses'])
    for (const o of api.list(r)) api.remove(r, o.metadata.namespace, o.metadata.name);
  eventErrors.length = 0;
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

describe('writes', () => {
  it('binds through pods/binding with the pod uid; 409 is a conflict and 404 is gone', async () => {
    api.put('pods', pod('a'));
    expect(await cluster.bindPod({ namespace: 'default', name: 'a', uid: 'uid-a' }, 'n1')).toBe('bound');
    const [req] = api.requestsTo('POST', '/api/v1/namespaces/default/pods/a/binding');
    expect(req?.contentType).toMatch(/^application\/json/);
    expect(req?.body).toEqual({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'a', namespace: 'default', uid: 'uid-a' },
      target: { apiVersion: 'v1', kind: 'Node', name: 'n1' },
    });
    expect(api.get<{ spec: { nodeName: string } }>('pods', 'default', 'a')?.spec.nodeName).toBe('n1');
    expect(await cluster.bindPod({ namespace: 'default', name: 'a' }, 'n2')).toBe('conflict');
    expect(await cluster.bindPod({ namespace: 'default', name: 'missing' }, 'n1')).toBe('gone');
  });

  it('cordons with a strategic merge patch', async () => {
    api.put('nodes', node('n1'));
    await cluster.cordon('n1');
    const [req] = api.requestsTo('PATCH', '/api/v1/nodes/n1');
    expect(req?.contentType).toBe('application/strategic-merge-patch+json');
    expect(req?.body).toEqual({ spec: { unschedulable: true } });
    expect(req?.query.get('fieldManager')).toBe('karpless');
    expect(api.get<{ spec: { unschedulable: boolean } }>('nodes', undefined, 'n1')?.spec.unschedulable).toBe(true);
  });

  it('adds and removes the disrupted taint with a resourceVersion-guarded JSON patch', async () => {
    const stored = api.put('nodes', node('n1', { taints: [{ key: 'other', effect: 'NoExecute' }] }));
    await cluster.setDisruptedTaint('n1', true);
    const [add] = api.requestsTo('PATCH', '/api/v1/nodes/n1');
    expect(add?.contentType).toBe('application/json-patch+json');
    expect(add?.body).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: stored.metadata.resourceVersion },
      { op: 'add', path: '/spec/taints/-', value: { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } },
    ]);
    type N = { spec: { taints: unknown[] } };
    expect(api.get<N>('nodes', undefined, 'n1')?.spec.taints).toEqual([
      { key: 'other', effect: 'NoExecute' },
      { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' },
    ]);

    await cluster.setDisruptedTaint('n1', true); // already there: read, no patch
    expect(api.requestsTo('PATCH', '/api/v1/nodes/n1')).toHaveLength(1);

    await cluster.setDisruptedTaint('n1', false);
    const remove = api.requestsTo('PATCH', '/api/v1/nodes/n1')[1];
    expect((remove!.body as { op: string; path: string }[])[1]).toEqual({ op: 'remove', path: '/spec/taints/1' });
    expect(api.get<N>('nodes', undefined, 'n1')?.spec.taints).toEqual([{ key: 'other', effect: 'NoExecute' }]);
  });

  it('re-reads and retries when the node changed between read and patch', async () => {
    api.put('nodes', node('n1'));
    let raced = false;
    api.override((r) => {
      if (r.method === 'PATCH' && !raced) {
        raced = true;
        api.put('nodes', node('n1', { taints: [{ key: 'new', effect: 'NoSchedule' }] }));
      }
      return undefined;
    });
    await cluster.setDisruptedTaint('n1', true);
    const patches = api.requestsTo('PATCH', '/api/v1/nodes/n1');
    expect(patches).toHaveLength(2);
    expect(api.get<{ spec: { taints: unknown[] } }>('nodes', undefined, 'n1')?.spec.taints).toEqual([
      { key: 'new', effect: 'NoSchedule' },
      { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' },
    ]);
  });

  it('syncs labels and missing taints from the NodeClaim', async () => {
    api.put('nodes', node('n1', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] }));
    await cluster.syncNode('n1', {
      labels: { 'karpenter.sh/nodepool': 'default', 'kubernetes.io/hostname': 'n1' },
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    });
    const [req] = api.requestsTo('PATCH', '/api/v1/nodes/n1');
    expect(req?.contentType).toBe('application/json-patch+json');
    const ops = req?.body as { op: string; path: string }[];
    expect(ops.map((o) => `${o.op} ${o.path}`)).toEqual([
      'test /metadata/resourceVersion',
      'replace /metadata/labels',
      'replace /spec/taints',
    ]);
    const stored = api.get<{ metadata: { labels: object }; spec: { taints: object[] } }>('nodes', undefined, 'n1');
    expect(stored?.metadata.labels).toEqual({ 'kubernetes.io/hostname': 'n1', 'karpenter.sh/nodepool': 'default' });
    expect(stored?.spec.taints).toHaveLength(2);
    await cluster.syncNode('n1', { labels: { 'karpenter.sh/nodepool': 'default' }, taints: [] });
    expect(api.requestsTo('PATCH', '/api/v1/nodes/n1')).toHaveLength(1);
  });

  it('deletes a node; an absent node is not an error', async () => {
    api.put('nodes', node('n1'));
    await cluster.deleteNode('n1');
    await cluster.deleteNode('n1');
    expect(api.requestsTo('DELETE', '/api/v1/nodes/n1')).toHaveLength(2);
    expect(api.get('nodes', undefined, 'n1')).toBeUndefined();
  });

  it('evicts through policy/v1: 201 evicted, 429 blocked, 404 gone', async () => {
    api.put('pods', pod('a', { spec: { nodeName: 'n1' } }));
    expect(await cluster.evict({ namespace: 'default', name: 'a', uid: 'uid-a' })).toBe('evicted');
    const [req] = api.requestsTo('POST', '/api/v1/namespaces/default/pods/a/eviction');
    expect(req?.body).toEqual({
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'a', namespace: 'default' },
      deleteOptions: { preconditions: { uid: 'uid-a' } },
    });
    expect(await cluster.evict({ namespace: 'default', name: 'a' })).toBe('gone');
    api.put('pods', pod('b'));
    api.override((r) =>
      r.path.endsWith('/eviction')
        ? {
            status: 429,
            body: kubeStatus(
              429,
              'TooManyRequests',
              "Cannot evict pod as it would violate the pod's disruption budget.",
            ),
          }
        : undefined,
    );
    expect(await cluster.evict({ namespace: 'default', name: 'b' })).toBe('blocked');
  });

  it('writes events with Karpenter reasons, deduplicated and rate-limited', async () => {
    const nominated: ClusterEvent = {
      involved: { kind: 'Pod', name: 'a', namespace: 'web', uid: 'u1' },
      type: 'Normal',
      reason: 'Nominated',
      message: 'Pod should schedule on: nodeclaim/default-x',
    };
    await cluster.recordEvent(nominated);
    await cluster.recordEvent(nominated); // duplicate within the window
    const [req] = api.requestsTo('POST', '/api/v1/namespaces/web/events');
    expect(api.requestsTo('POST', '/api/v1/namespaces/web/events')).toHaveLength(1);
    expect(req?.body).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: 'a.', namespace: 'web' },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'a', namespace: 'web', uid: 'u1' },
      type: 'Normal',
      reason: 'Nominated',
      message: 'Pod should schedule on: nodeclaim/default-x',
      source: { component: 'karpless' },
      count: 1,
    });

    const nodeEvent = (reason: string): ClusterEvent => ({
      involved: { kind: 'Node', name: 'n1' },
      type: 'Normal',
      reason,
      message: reason,
    });
    await cluster.recordEvent(nodeEvent('DisruptionBlocked'));
    await cluster.recordEvent(nodeEvent('Disrupting'));
    await cluster.recordEvent(nodeEvent('Launched')); // burst of 3 exhausted
    const nodeEvents = api.requestsTo('POST', '/api/v1/namespaces/default/events');
    expect(nodeEvents.map((r) => (r.body as { reason: string }).reason)).toEqual(['DisruptionBlocked', 'Disrupting']);
    expect((nodeEvents[0]!.body as { involvedObject: object }).involvedObject).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      name: 'n1',
    });

    now += 2000; // two tokens refill
    await cluster.recordEvent(nodeEvent('Launched'));
    now += 61_000;
    await cluster.recordEvent(nominated); // window passed
    expect(api.requestsTo('POST', '/api/v1/namespaces/default/events')).toHaveLength(3);
    expect(api.requestsTo('POST', '/api/v1/namespaces/web/events')).toHaveLength(2);
  });

  it('reports, never throws, a failed event write', async () => {
    api.override((r) =>
      r.path.endsWith('/events') ? { status: 500, body: kubeStatus(500, 'InternalError', 'etcd') } : undefined,
    );
    await cluster.recordEvent({
      involved: { kind: 'Node', name: 'n9' },
      type: 'Warning',
      reason: 'FailedScheduling',
      message: 'm',
    });
    expect(eventErrors[0]).toBeInstanceOf(ClusterApiError);
  });
});

describe('status', () => {
  const condition = (type: string, generation: number) => ({
    type,
    status: 'True' as const,
    reason: type,
    message: '',
    lastTransitionTime: '2026-01-01T00:00:00.000Z',
    observedGeneration: generation,
  });
  const poolStatus: NodePoolStatus = {
    resources: { cpu: '4', memory: '16Gi', nodes: '2' },
    conditions: [condition('Ready', 3)],
  };
  const classStatus: EC2NodeClassStatus = {
    subnets: [{ id: 'subnet-1', zone: 'us-east-1a', zoneID: 'use1-az1' }],
    securityGroups: [{ id: 'sg-1', name: 'nodes' }],
    amis: [
      {
        id: 'ami-1',
        name: 'al2023',
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      },
    ],
    instanceProfile: 'profile',
    conditions: [condition('Ready', 1)],
  };

  it('keeps generation and status when listing NodePools and EC2NodeClasses, and no other bookkeeping', async () => {
    api.put('nodepools', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: {
        name: 'default',
        uid: 'np',
        generation: 3,
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [{ manager: 'kubectl' }],
        finalizers: ['karpenter.sh/termination'],
      },
      spec: { weight: 10 },
      status: poolStatus,
    });
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default', uid: 'nc', generation: 1 },
      spec: { role: 'R' },
      status: classStatus,
    });
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'new', uid: 'nc2' },
      spec: { role: 'R' },
    });
    expect(await cluster.listNodePools()).toEqual([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'default', uid: 'np', generation: 3 },
        spec: { weight: 10 },
        status: poolStatus,
      },
    ]);
    const [nc, fresh] = await cluster.listNodeClasses();
    expect(nc?.metadata).toEqual({ name: 'default', uid: 'nc', generation: 1 });
    expect(nc?.status).toEqual(classStatus);
    expect(Object.keys(fresh!)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(Object.keys(fresh!.metadata)).not.toContain('generation');
  });

  it('replaces a NodePool status with a JSON patch add on the status subresource', async () => {
    api.put('nodepools', {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'default', uid: 'np', generation: 3 },
      spec: { weight: 10 },
      // Written earlier (by Karpenter, say): keys the new status lacks must not survive.
      status: { resources: { cpu: '8', 'nvidia.com/gpu': '1', nodes: '3' }, conditions: [], stale: true },
    });
    expect(await cluster.replaceStatus({ kind: 'NodePool', name: 'default', status: poolStatus })).toBe('replaced');
    const reqs = api.requestsTo('PATCH', '/apis/karpenter.sh/v1/nodepools/default/status');
    expect(reqs).toHaveLength(1);
    expect(api.requests).toHaveLength(1);
    const [req] = reqs;
    expect(req?.path).toBe('/apis/karpenter.sh/v1/nodepools/default/status');
    expect(req?.contentType).toBe('application/json-patch+json');
    expect(req?.query.get('fieldManager')).toBe('karpless');
    expect(req?.body).toEqual([{ op: 'add', path: '/status', value: poolStatus }]);
    expect(api.get<{ status: unknown }>('nodepools', undefined, 'default')?.status).toEqual(poolStatus);
    const [np] = await cluster.listNodePools();
    expect(np?.status).toEqual(poolStatus);
  });

  it('replaces an EC2NodeClass status, creating it on an object that has none', async () => {
    api.put('ec2nodeclasses', {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'default', uid: 'nc', generation: 1 },
      spec: { role: 'R' },
    });
    const update = { kind: 'EC2NodeClass', name: 'default', status: classStatus } as const;
    expect(await cluster.replaceStatus(update)).toBe('replaced');
    const [req] = api.requestsTo('PATCH', '/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default/status');
    expect(req?.method).toBe('PATCH');
    expect(req?.path).toBe('/apis/karpenter.k8s.aws/v1/ec2nodeclasses/default/status');
    expect(req?.contentType).toBe('application/json-patch+json');
    expect(req?.body).toEqual([{ op: 'add', path: '/status', value: classStatus }]);
    const [nc] = await cluster.listNodeClasses();
    expect(nc?.status).toEqual(classStatus);
  });

  it('answers gone when the object no longer exists (404)', async () => {
    expect(await cluster.replaceStatus({ kind: 'NodePool', name: 'deleted', status: poolStatus })).toBe('gone');
    expect(await cluster.replaceStatus({ kind: 'EC2NodeClass', name: 'deleted', status: classStatus })).toBe('gone');
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /apis/karpenter.sh/v1/nodepools/deleted/status',
      'PATCH /apis/karpenter.k8s.aws/v1/ec2nodeclasses/deleted/status',
    ]);
  });

  it('classifies a 403 like other calls, naming the status subresource', async () => {
    api.override(() => ({
      status: 403,
      body: kubeStatus(
        403,
        'Forbidden',
        'nodepools.karpenter.sh "default" is forbidden: User "karpless" cannot patch resource "nodepools/status" in API group "karpenter.sh" at the cluster scope',
        { name: 'default', group: 'karpenter.sh', kind: 'nodepools' },
      ),
    }));
    const err = (await cluster
      .replaceStatus({ kind: 'NodePool', name: 'default', status: poolStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect(err).toBeInstanceOf(ClusterApiError);
    expect([err.status, err.retryable]).toEqual([403, false]);
    expect(err.message).toMatch(/lacks RBAC verb "patch" on resource "nodepools\/status.karpenter.sh"/);

    api.clearOverrides();
    api.override(() => ({ status: 403, body: {} }));
    const bare = (await cluster
      .replaceStatus({ kind: 'EC2NodeClass', name: 'default', status: classStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect(bare.message).toMatch(/verb "patch" on resource "ec2nodeclasses\/status.karpenter.k8s.aws"/);
  });

  it('names the verb, status subresource and object on other failures, retryable as other calls', async () => {
    api.override(() => ({ status: 422, body: kubeStatus(422, 'Invalid', 'status.conditions[0].reason: Invalid') }));
    const invalid = (await cluster
      .replaceStatus({ kind: 'NodePool', name: 'default', status: poolStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect([invalid.status, invalid.retryable]).toEqual([422, false]);
    expect(invalid.message).toMatch(/^patch nodepools\/status\.karpenter\.sh "default": HTTP 422 Invalid/);
    api.clearOverrides();
    api.override(() => ({ status: 503, body: kubeStatus(503, 'ServiceUnavailable', 'down') }));
    const down = (await cluster
      .replaceStatus({ kind: 'EC2NodeClass', name: 'default', status: classStatus })
      .catch((e: unknown) => e)) as ClusterApiError;
    expect([down.status, down.retryable]).toEqual([503, true]);
    expect(down.message).toMatch(/^patch ec2nodeclasses\/status\.karpenter\.k8s\.aws "default"/);
  });
});

describe('errors', () => {
  it('names the missing RBAC verb and resource on 403', async () => {
    api.override(() => ({
      status: 403,
      body: kubeStatus(
        403,
        'Forbidden',
        'nodes "n1" is forbidden: User "karpless" cannot patch resource "nodes" in API group "" at the cluster scope',
        { name: 'n1', kind: 'nodes' },
      ),
    }));
    const err = await cluster.cordon('n1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClusterApiError);
    expect((err as ClusterApiError).retryable).toBe(false);
    expect((err as ClusterApiError).status).toBe(403);
    expect((err as ClusterApiError).message).toMatch(/lacks RBAC verb "patch" on resource "nodes"/);
  });

  it('falls back to the attempted action when the 403 body says nothing', async () => {
    api.override(() => ({ status: 403, body: {} }));
    const err = (await cluster.listNodePools().catch((e: unknown) => e)) as ClusterApiError;
    expect(err.message).toMatch(/verb "list" on resource "nodepools.karpenter.sh"/);
  });

  it('marks 429 and 5xx retryable and 422 final', async () => {
    api.override(() => ({ status: 503, body: kubeStatus(503, 'ServiceUnavailable', 'down') }));
    const unavailable = (await cluster.listNodes().catch((e: unknown) => e)) as ClusterApiError;
    expect([unavailable.status, unavailable.retryable]).toEqual([503, true]);
    api.clearOverrides();
    api.override(() => ({ status: 429, body: kubeStatus(429, 'TooManyRequests', 'slow down') }));
    const throttled = (await cluster.listPods().catch((e: unknown) => e)) as ClusterApiError;
    expect([throttled.status, throttled.retryable]).toEqual([429, true]);
    api.clearOverrides();
    api.override(() => ({ status: 422, body: kubeStatus(422, 'Invalid', 'bad') }));
    const invalid = (await cluster.cordon('n1').catch((e: unknown) => e)) as ClusterApiError;
    expect([invalid.status, invalid.retryable]).toEqual([422, false]);
  });

  it('marks connection failures and timeouts retryable', async () => {
    const kc = buildKubeConfig({ cluster: 't', endpoint: 'http://127.0.0.1:1', tokens: { getToken: async () => 't' } });
    const refused = (await new KubeClusterApi(kc).listNodes().catch((e: unknown) => e)) as ClusterApiError;
    expect(refused).toBeInstanceOf(ClusterApiError);
    expect([refused.status, refused.retryable]).toEqual([undefined, true]);

    // A server that accepts the request and never answers.
    const { createServer } = await import('node:http');
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const slow = buildKubeConfig({
      cluster: 't',
      endpoint: `http://127.0.0.1:${port}`,
      tokens: { getToken: async () => 't' },
    });
    const timedOut = (await new KubeClusterApi(slow, { timeoutMs: 200 })
      .listNodes()
      .catch((e: unknown) => e)) as ClusterApiError;
    silent.closeAllConnections();
    silent.close();
    expect(timedOut).toBeInstanceOf(ClusterApiError);
    expect(timedOut.retryable).toBe(true);
  });
});
