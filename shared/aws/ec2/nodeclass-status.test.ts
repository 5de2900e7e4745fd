import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAws, fakeAws } from '../../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../../testkit/aws/provider';
import { ec2NodeClass } from '../../../testkit/builders';

let aws: FakeAws;
beforeEach(() => {
  aws = fakeAws();
});
afterEach(() => aws.restore());

describe('AwsCloudProvider.describeNodeClass', () => {
  it("reports what the class resolved to, in Karpenter's status shape, with each AMI's requirements", async () => {
    const cloud = fakeAwsProvider(aws, { instanceTypes: () => [] });
    const r = await cloud.describeNodeClass(ec2NodeClass());
    expect(r.subnets).toEqual([
      { id: 'subnet-a1', zone: 'us-east-1a', zoneID: 'use1-az1' },
      { id: 'subnet-a2', zone: 'us-east-1a', zoneID: 'use1-az1' },
      { id: 'subnet-b1', zone: 'us-east-1b', zoneID: 'use1-az2' },
    ]);
    expect(r.securityGroups).toEqual([{ id: 'sg-node', name: 'eks-node' }]);
    const arch = (a: string) => ({ key: 'kubernetes.io/arch', operator: 'In', values: [a] });
    const gpu = { key: 'karpenter.k8s.aws/instance-gpu-manufacturer', values: ['nvidia'] };
    const neuron = { key: 'karpenter.k8s.aws/instance-accelerator-manufacturer', values: ['aws'] };
    expect(r.amis).toEqual(
      expect.arrayContaining([
        {
          id: 'ami-amd-new',
          name: 'al2023-amd-2',
          requirements: [arch('amd64'), { ...gpu, operator: 'NotIn' }, { ...neuron, operator: 'NotIn' }],
        },
        {
          id: 'ami-amd-nvidia',
          name: 'al2023-amd-nvidia-2',
          requirements: [arch('amd64'), { ...gpu, operator: 'In' }],
        },
      ]),
    );
    expect(r.instanceProfile).toMatch(/^karpless_test-cluster_/);
    expect(r.ready).toEqual({ status: 'True', reason: expect.any(String), message: '' });
  });

  it('an image chosen by id serves every type of its architecture; nothing matched is not ready, with the reason', async () => {
    const cloud = fakeAwsProvider(aws, { instanceTypes: () => [] });
    const byId = await cloud.describeNodeClass(ec2NodeClass({ amiSelectorTerms: [{ id: 'ami-custom' }] }));
    expect(byId.amis).toEqual([
      {
        id: 'ami-custom',
        name: 'my-golden-amd',
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
      },
    ]);
    const none = await cloud.describeNodeClass(ec2NodeClass({ subnetSelectorTerms: [{ tags: { nothing: 'here' } }] }));
    expect(none.subnets).toEqual([]);
    expect(none.ready).toMatchObject({ status: 'False', reason: 'SubnetsNotFound' });
    expect(none.ready.message).toMatch(/EC2NodeClass default: .*subnet/i);
  });
});
