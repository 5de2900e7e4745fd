// How KubeClusterApi classifies failures: RBAC 403s name the missing verb and resource, 429/5xx and network
// failures are retryable, 422 is final.
import { beforeEach, describe, expect, it } from 'vitest';
import { kubeStatus } from '../../test/fake-kube-api/server';
import { useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import { buildKubeConfig } from '../aws/eks-auth/kubeconfig';
import { ClusterApiError } from '../errors';
import { KubeClusterApi } from './cluster-api';

const bed = useKubeClusterBed();
const { api } = bed;
let cluster: KubeClusterApi;
beforeEach(() => {
  cluster = bed.cluster;
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
