// KubeClusterApi writes against the fake API server: binding, cordon, the disrupted taint, label and taint sync,
// node deletion, eviction, and Kubernetes events (deduplicated, rate-limited, failures reported, never thrown).
import { beforeEach, describe, expect, it } from 'vitest';
import { kubeStatus } from '../../test/fake-kube-api/server';
import { node, pod, useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import { ClusterApiError } from '../errors';
import type { ClusterEvent } from '../ports';
import type { KubeClusterApi } from './cluster-api';

const bed = useKubeClusterBed();
const { api, eventErrors } = bed;
let cluster: KubeClusterApi;
beforeEach(() => {
  cluster = bed.cluster;
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
    expect(api.requestsTo('DELETE', '/api/v1/nodes/n1')).toHaveLength(1);
    expect(api.get('nodes', undefined, 'n1')).toBeUndefined();
    await cluster.deleteNode('n1');
  });

  it("takes Karpless's termination finalizer off a node it deletes, leaving another actor's", async () => {
    const n = node('n2');
    api.put('nodes', {
      ...n,
      metadata: { ...n.metadata, finalizers: ['example.com/keep', 'karpenter.sh/termination'] },
    });
    await cluster.deleteNode('n2');
    const [patch] = api.requestsTo('PATCH', '/api/v1/nodes/n2');
    expect(patch?.body).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: expect.any(String) },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
    const left = api.get<{ metadata: { finalizers?: string[]; deletionTimestamp?: string } }>('nodes', undefined, 'n2');
    expect(left?.metadata.finalizers).toEqual(['example.com/keep']);
    expect(left?.metadata.deletionTimestamp).toBeDefined();
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

    bed.advance(2000); // two tokens refill
    await cluster.recordEvent(nodeEvent('Launched'));
    bed.advance(61_000);
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
