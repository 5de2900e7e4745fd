import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKubeApi } from '../../../test/fake-kube-api/server';
import { buildKubeConfig } from './kubeconfig';
import { EksTokenProvider, TOKEN_PREFIX } from './token';

const api = new FakeKubeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());

describe('buildKubeConfig', () => {
  it('sends the current token as a bearer token on every request', async () => {
    let n = 0;
    const kc = buildKubeConfig({ cluster: 'c', endpoint: api.url, tokens: { getToken: async () => `t${++n}` } });
    const core = kc.makeApiClient(CoreV1Api);
    await core.listNode();
    await core.listNode();
    expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
  });

  it('points at the configured endpoint with the CA and verifies TLS for https', () => {
    const kc = buildKubeConfig({
      cluster: 'c',
      endpoint: 'https://abc.eks',
      caData: 'UEVN',
      tokens: { getToken: async () => '' },
    });
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://abc.eks', caData: 'UEVN', skipTLSVerify: false });
  });

  it('carries an EKS token end to end', async () => {
    api.requests.length = 0;
    const tokens = new EksTokenProvider({
      cluster: 'c',
      region: 'us-east-1',
      credentials: async () => ({ accessKeyId: 'AKID', secretAccessKey: 's' }),
    });
    const kc = buildKubeConfig({ cluster: 'c', endpoint: api.url, tokens });
    await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(api.requests[0]?.headers.authorization?.startsWith(`Bearer ${TOKEN_PREFIX}`)).toBe(true);
  });
});
