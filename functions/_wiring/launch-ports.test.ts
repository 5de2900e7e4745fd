// aws-sdk-client-mock: the ports build their own clients from the Lambda environment, and the test counts at the SDK
// boundary the calls each cold start makes. The real port builders with every AWS call mocked at the SDK boundary: what each one reads at cold start, and
// that the launching ports have HiGHS loaded by the time they are returned.
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearEndpointCache } from '../../shared/aws/eks-auth';
import { lpSolverLoaded } from '../../shared/scheduling';
import { readEnv } from './env';
import { awsPorts } from './launch-ports';
import { awsInstancePorts } from './ports';

const eks = mockClient(EKSClient);
const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  eks.reset();
  ddb.reset();
  ddb.on(GetCommand).resolves({});
});
afterEach(() => {
  clearEndpointCache();
  eks.restore();
  ddb.restore();
});

const env = readEnv({
  CLUSTER_NAME: 'demo',
  TABLE_NAME: 'karpless-demo',
  QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-events.fifo',
  TERMINATION_QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-termination',
  AWS_REGION: 'us-west-2',
  CLUSTER_ENDPOINT: 'https://ABC.gr7.us-west-2.eks.amazonaws.com',
  CLUSTER_CA: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64'),
  SERVICE_CIDR: '172.20.0.0/16',
  KUBERNETES_VERSION: '1.31',
});

describe('the ports a cold start builds', () => {
  it('termination and GC: no DescribeCluster, no price read, a cloud that cannot launch, and no solver', async () => {
    const ports = await awsInstancePorts(env);
    expect(eks.commandCalls(DescribeClusterCommand)).toHaveLength(0);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    expect('create' in ports.cloud).toBe(false);
    expect(typeof ports.cloud.list).toBe('function');
    expect(ports.terminationQueue).toBeDefined();
    expect(lpSolverLoaded()).toBe(false);
  });

  it('provisioner and interruption: one price read, a launching cloud, and HiGHS loaded while they waited', async () => {
    expect(lpSolverLoaded()).toBe(false);
    const ports = await awsPorts(env);
    expect(lpSolverLoaded()).toBe(true);
    // Endpoint, CA, CIDR and version all configured: nothing asks EKS.
    expect(eks.commandCalls(DescribeClusterCommand)).toHaveLength(0);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: 'karpless-demo', Key: { PK: 'CLUSTER#demo', SK: 'PRICES#current' } },
    ]);
    expect(typeof ports.cloud.create).toBe('function');
    expect(typeof ports.cloud.describeNodeClass).toBe('function');
  });

  it('with nothing configured: one DescribeCluster gives the endpoint, CA, service CIDR and version', async () => {
    const bare = readEnv({
      CLUSTER_NAME: 'demo',
      TABLE_NAME: 'karpless-demo',
      QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-events.fifo',
      TERMINATION_QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-termination',
      AWS_REGION: 'us-west-2',
    });
    eks.on(DescribeClusterCommand, { name: 'demo' }).resolves({
      cluster: {
        endpoint: 'https://ABC.gr7.us-west-2.eks.amazonaws.com',
        certificateAuthority: { data: Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') },
        kubernetesNetworkConfig: { serviceIpv4Cidr: '10.100.0.0/16' },
        version: '1.32',
      },
    });
    const ports = await awsPorts(bare);
    expect(eks.commandCalls(DescribeClusterCommand)).toHaveLength(1);
    expect(typeof ports.cloud.create).toBe('function');
  });
});
