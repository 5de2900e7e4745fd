// aws-sdk-client-mock: DescribeCluster must answer with the fake Kubernetes API's URL as the endpoint, an endpoint moto's EKS chooses itself.
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { CoreV1Api } from '@kubernetes/client-node';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeKubeApi } from '../../../test/fake-kube-api/server';
import { clearEndpointCache, createEksKubeConfig, TOKEN_PREFIX } from './index';

const eksMock = mockClient(EKSClient);
const api = new FakeKubeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());
beforeEach(() => {
  eksMock.reset();
  clearEndpointCache();
});

describe('createEksKubeConfig', () => {
  it('resolves the endpoint through DescribeCluster and signs requests with an EKS token', async () => {
    eksMock
      .on(DescribeClusterCommand)
      .resolves({ cluster: { endpoint: api.url, certificateAuthority: { data: 'UEVN' } } });
    const kc = await createEksKubeConfig({
      cluster: 'prod',
      region: 'us-east-1',
      eks: new EKSClient({ region: 'us-east-1' }),
      credentials: async () => ({ accessKeyId: 'AKID', secretAccessKey: 's' }),
    });
    expect(kc.getCurrentCluster()).toMatchObject({ server: api.url, caData: 'UEVN' });
    await kc.makeApiClient(CoreV1Api).listNode();
    const auth = api.requests.at(-1)?.headers.authorization ?? '';
    expect(auth.startsWith(`Bearer ${TOKEN_PREFIX}`)).toBe(true);
    const url = new URL(Buffer.from(auth.slice(`Bearer ${TOKEN_PREFIX}`.length), 'base64url').toString());
    expect(url.host).toBe('sts.us-east-1.amazonaws.com');
    expect(eksMock.commandCalls(DescribeClusterCommand)[0]?.args[0].input).toEqual({ name: 'prod' });
  });

  it('uses the configured endpoint and CA without calling EKS', async () => {
    const kc = await createEksKubeConfig({
      cluster: 'prod',
      region: 'us-east-1',
      endpoint: 'https://private.eks',
      caData: 'Q0E=',
      eks: new EKSClient({ region: 'us-east-1' }),
      credentials: async () => ({ accessKeyId: 'AKID', secretAccessKey: 's' }),
    });
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://private.eks', caData: 'Q0E=' });
    expect(eksMock.calls()).toHaveLength(0);
  });
});
