// The Kubernetes adapter's test bed: a fake API server (test/fake-kube-api) started once per test file, a fresh
// KubeClusterApi on it for every test (pages of 2, a 2 s timeout, a settable clock, event rate limits small enough to
// exercise), and the pod and node objects the adapter tests put into it. Each test starts from an empty server.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { buildKubeConfig } from '../shared/aws/eks-auth/kubeconfig';
import { KubeClusterApi } from '../shared/kube/cluster-api';
import { FakeKubeApi } from '../test/fake-kube-api/server';

export interface KubeClusterBed {
  api: FakeKubeApi;
  /** The adapter under test, new for each test. */
  readonly cluster: KubeClusterApi;
  /** Event writes the adapter reported through onEventError, cleared after each test. */
  eventErrors: Error[];
  /** Moves the adapter's clock forward (event rate limits and deduplication read it). */
  advance(ms: number): void;
}

/** Registers the bed's hooks in the calling test file and returns it. */
export function useKubeClusterBed(): KubeClusterBed {
  const api = new FakeKubeApi();
  const eventErrors: Error[] = [];
  let tokenCount = 0;
  let now = Date.UTC(2026, 0, 1);
  let cluster: KubeClusterApi | undefined;

  const makeCluster = (pageSize = 2) => {
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
  };

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
    for (const r of ['pods', 'nodes', 'events', 'nodepools', 'ec2nodeclasses', 'nodeclaims'])
      for (const o of api.list(r)) api.remove(r, o.metadata.namespace, o.metadata.name);
    eventErrors.length = 0;
  });

  return {
    api,
    get cluster() {
      if (!cluster) throw new Error('the kube cluster bed makes its adapter in beforeEach; use it inside a test');
      return cluster;
    },
    eventErrors,
    advance: (ms) => {
      now += ms;
    },
  };
}

/** A pending, unschedulable pod carrying the fields the adapter trims away; `extra` merges into each part. */
export const pod = (name: string, extra: Record<string, unknown> = {}) => ({
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

/** A Ready node with the status fields the adapter trims away. */
export const node = (name: string, extra: Record<string, unknown> = {}) => ({
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
