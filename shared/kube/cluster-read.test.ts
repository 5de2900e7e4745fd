// readClusterObjects against the fake Kubernetes API server: pages through limit/continue, adds apiVersion and kind
// to each item, skips a custom kind the cluster does not serve, and names the list an RBAC refusal stopped.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKubeApi, kubeStatus } from '../../test/fake-kube-api/server';
import { type ListedKind, readClusterObjects } from './cluster-read';

const PODS: ListedKind = { group: '', version: 'v1', resource: 'pods', kind: 'Pod' };
const OVERLAYS: ListedKind = {
  group: 'karpenter.sh',
  version: 'v1alpha1',
  resource: 'nodeoverlays',
  kind: 'NodeOverlay',
  optional: true,
};
const NODES: ListedKind = { group: '', version: 'v1', resource: 'nodes', kind: 'Node' };

let api: FakeKubeApi;
let kc: KubeConfig;

beforeAll(async () => {
  api = new FakeKubeApi();
  for (let i = 0; i < 5; i++) {
    api.put('pods', {
      metadata: { name: `web-${i}`, namespace: 'shop', managedFields: [{ manager: 'kubectl' }] },
      spec: { containers: [] },
    });
  }
  const server = await api.start();
  kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server, skipTLSVerify: true }],
    users: [{ name: 'reader', token: 'read-only' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'reader' }],
    currentContext: 'fake',
  });
});
afterAll(() => api.stop());

describe('readClusterObjects', () => {
  it('pages through a list and returns its items as kubectl dumps them', async () => {
    api.requests.length = 0;
    const progress: string[] = [];
    const objects = await readClusterObjects(kc, [PODS], { pageSize: 2, onProgress: (l) => progress.push(l) });
    expect(objects.map((o) => [o.apiVersion, o.kind, (o.metadata as { name: string }).name])).toEqual(
      [0, 1, 2, 3, 4].map((i) => ['v1', 'Pod', `web-${i}`]),
    );
    expect(objects[0]?.metadata).not.toHaveProperty('managedFields');
    expect(api.requests.map((r) => [r.method, r.path, r.query.get('limit'), r.query.has('continue')])).toEqual([
      ['GET', '/api/v1/pods', '2', false],
      ['GET', '/api/v1/pods', '2', true],
      ['GET', '/api/v1/pods', '2', true],
    ]);
    expect(progress).toEqual([expect.stringMatching(/^listed 5 pods \(v1\) in 3 page\(s\), \d+ ms$/)]);
  });

  it('skips a custom kind the cluster answers 404 for, and fails on a core kind it refuses', async () => {
    api.override((r) =>
      r.path.includes('nodeoverlays')
        ? { status: 404, body: kubeStatus(404, 'NotFound', 'the server could not find the requested resource') }
        : undefined,
    );
    api.override((r) =>
      r.path === '/api/v1/nodes'
        ? {
            status: 403,
            body: kubeStatus(
              403,
              'Forbidden',
              'nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope',
            ),
          }
        : undefined,
    );
    const progress: string[] = [];
    const objects = await readClusterObjects(kc, [OVERLAYS, PODS], { onProgress: (l) => progress.push(l) });
    expect(objects).toHaveLength(5);
    expect(progress[0]).toBe(
      'skipped nodeoverlays (karpenter.sh/v1alpha1): the cluster does not serve it (no such CRD version)',
    );
    await expect(readClusterObjects(kc, [NODES])).rejects.toThrow(
      /forbidden: the identity lacks RBAC verb "list" on resource "nodes"/,
    );
    api.clearOverrides();
  });
});
