// aws-sdk-client-mock: a DescribeCluster that fails once and then answers, and one without an endpoint, cannot be staged on moto's EKS.
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearEndpointCache, resolveClusterEndpoint } from './cluster-endpoint';

const eksMock = mockClient(EKSClient);
const eks = new EKSClient({ region: 'us-east-1' });

beforeEach(() => {
  eksMock.reset();
  clearEndpointCache();
});
afterEach(() => clearEndpointCache());

describe('resolveClusterEndpoint', () => {
  it('uses configuration without calling EKS', async () => {
    const got = await resolveClusterEndpoint({ cluster: 'a', endpoint: 'https://x', caData: 'Q0E=' }, eks);
    expect(got).toEqual({ endpoint: 'https://x', caData: 'Q0E=' });
    expect(eksMock.calls()).toHaveLength(0);
  });

  it('calls DescribeCluster once per warm container', async () => {
    eksMock.on(DescribeClusterCommand, { name: 'prod' }).resolves({
      cluster: { endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', certificateAuthority: { data: 'UEVN' } },
    });
    const a = await resolveClusterEndpoint({ cluster: 'prod' }, eks);
    const b = await resolveClusterEndpoint({ cluster: 'prod' }, eks);
    expect(a).toEqual({ endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', caData: 'UEVN' });
    expect(b).toEqual(a);
    expect(eksMock.commandCalls(DescribeClusterCommand)).toHaveLength(1);
    expect(eksMock.commandCalls(DescribeClusterCommand)[0]?.args[0].input).toEqual({ name: 'prod' });
  });

  it('keeps a configured endpoint and fills only the missing CA', async () => {
    eksMock
      .on(DescribeClusterCommand)
      .resolves({ cluster: { endpoint: 'https://eks', certificateAuthority: { data: 'Q0E=' } } });
    const got = await resolveClusterEndpoint({ cluster: 'p', endpoint: 'https://private' }, eks);
    expect(got).toEqual({ endpoint: 'https://private', caData: 'Q0E=' });
  });

  it('does not cache a failure', async () => {
    eksMock
      .on(DescribeClusterCommand)
      .rejectsOnce(new Error('throttled'))
      .resolves({
        cluster: { endpoint: 'https://eks', certificateAuthority: { data: 'Q0E=' } },
      });
    await expect(resolveClusterEndpoint({ cluster: 'p' }, eks)).rejects.toThrow('throttled');
    await expect(resolveClusterEndpoint({ cluster: 'p' }, eks)).resolves.toEqual({
      endpoint: 'https://eks',
      caData: 'Q0E=',
    });
  });

  it('names the cluster when EKS returns no endpoint', async () => {
    eksMock.on(DescribeClusterCommand).resolves({ cluster: { name: 'p' } });
    await expect(resolveClusterEndpoint({ cluster: 'p' }, eks)).rejects.toThrow(/cluster "p"/);
  });
});
