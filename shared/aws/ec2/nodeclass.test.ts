import { DescribeImagesCommand, DescribeSubnetsCommand } from '@aws-sdk/client-ec2';
import { AddRoleToInstanceProfileCommand, CreateInstanceProfileCommand } from '@aws-sdk/client-iam';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAws, fakeAws } from '../../../testkit/aws/fake-aws';
import { testCluster } from '../../../testkit/aws/objects';
import { ec2NodeClass } from '../../../testkit/builders';
import { aliasParameter, amiFor, parseAlias } from './amis';
import { instanceProfileName } from './instance-profile';
import { NodeClassResolver } from './nodeclass';

let aws: FakeAws;
let now = 0;
let resolver: NodeClassResolver;

beforeEach(() => {
  aws = fakeAws();
  resolver = new NodeClassResolver({
    ec2: aws.ec2Client,
    ssm: aws.ssmClient,
    iam: aws.iamClient,
    cluster: testCluster,
    clock: { now: () => now },
  });
});
afterEach(() => aws.restore());

describe('NodeClassResolver', () => {
  it('resolves subnets by tag, picking the subnet with most free IPs per zone', async () => {
    const r = await resolver.resolve(ec2NodeClass());
    expect(r.subnets.map((s) => s.id)).toEqual(['subnet-a1', 'subnet-a2', 'subnet-b1']);
    expect([...r.subnetByZone].map(([z, s]) => `${z}=${s.id}`)).toEqual([
      'us-east-1a=subnet-a2',
      'us-east-1b=subnet-b1',
    ]);
    expect(aws.ec2.commandCalls(DescribeSubnetsCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'tag:karpenter.sh/discovery', Values: ['test-cluster'] },
    ]);
    expect(r.ready).toEqual({ type: 'Ready', status: 'True', reason: 'Resolved', message: '' });
  });

  it('ORs terms and ANDs fields; a "*" tag value means the key exists; names and ids are filters', async () => {
    const r = await resolver.resolve(
      ec2NodeClass({
        subnetSelectorTerms: [{ tags: { Name: 'private-*', 'karpenter.sh/discovery': '*' } }, { id: 'subnet-c1' }],
        securityGroupSelectorTerms: [{ name: 'extra' }, { id: 'sg-node', tags: { team: 'web' } }],
      }),
    );
    expect(r.subnets.map((s) => s.id)).toEqual(['subnet-a1', 'subnet-a2', 'subnet-b1', 'subnet-c1']);
    // sg-node lacks team=web, so its term (id AND tag) matches nothing.
    expect(r.securityGroups.map((g) => g.id)).toEqual(['sg-extra']);
    const calls = aws.ec2.commandCalls(DescribeSubnetsCommand).map((c) => c.args[0].input.Filters);
    expect(calls).toEqual([
      [
        { Name: 'tag:Name', Values: ['private-*'] },
        { Name: 'tag-key', Values: ['karpenter.sh/discovery'] },
      ],
      [{ Name: 'subnet-id', Values: ['subnet-c1'] }],
    ]);
  });

  it('resolves al2023@latest through SSM for each arch and variant that exists', async () => {
    const r = await resolver.resolve(ec2NodeClass());
    expect(r.amis.map((a) => `${a.arch}/${a.variant}:${a.id}`)).toEqual([
      'amd64/nvidia:ami-amd-nvidia',
      'amd64/standard:ami-amd-new',
      'arm64/standard:ami-arm-new',
    ]);
    expect(r.amiFamily).toBe('AL2023');
    const asked = aws.ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input.Name);
    expect(asked).toContain('/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/neuron/recommended/image_id');
    expect(asked).not.toContain(
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/neuron/recommended/image_id',
    );
  });

  it('boots each instance type from the image of its arch and accelerator', async () => {
    const r = await resolver.resolve(ec2NodeClass());
    const gpu = { arch: 'amd64' as const, gpu: { count: 1, name: 'a10g', manufacturer: 'nvidia', memoryMiB: 24576 } };
    expect(amiFor(gpu, r.amis)?.id).toBe('ami-amd-nvidia');
    expect(amiFor({ arch: 'amd64' }, r.amis)?.id).toBe('ami-amd-new');
    expect(amiFor({ arch: 'arm64' }, r.amis)?.id).toBe('ami-arm-new');
    // No neuron image resolved: Inferentia types are not launched rather than booted without drivers.
    expect(
      amiFor({ arch: 'amd64', accelerator: { count: 1, name: 'inferentia', manufacturer: 'aws' } }, r.amis),
    ).toBeUndefined();
    // An image chosen by id serves every type of its arch.
    const byId = [{ id: 'ami-x', arch: 'amd64' as const }];
    expect(amiFor(gpu, byId)?.id).toBe('ami-x');
  });

  it('resolves a pinned alias, and id/name/tags with owner defaults', async () => {
    const pinned = await resolver.resolve(ec2NodeClass({ amiSelectorTerms: [{ alias: 'al2023@v20250101' }] }));
    expect(pinned.amis.map((a) => a.id)).toEqual(['ami-amd-old']);
    const byTag = await resolver.resolve(
      ec2NodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { golden: 'yes' } }] }),
    );
    expect(byTag.amis.map((a) => a.id)).toEqual(['ami-custom']);
    const imageCalls = aws.ec2.commandCalls(DescribeImagesCommand).map((c) => c.args[0].input);
    expect(imageCalls.at(-1)).toEqual({
      Filters: [
        { Name: 'tag:golden', Values: ['yes'] },
        { Name: 'state', Values: ['available'] },
      ],
      Owners: ['self', 'amazon'],
    });
    const both = await resolver.resolve(
      ec2NodeClass({
        amiFamily: 'AL2023',
        amiSelectorTerms: [{ name: 'al2023-amd-*', owner: 'amazon' }, { id: 'ami-custom' }],
      }),
    );
    expect(both.amis.map((a) => a.id)).toEqual(['ami-custom']); // newest amd64 of the three
  });

  it('knows the public SSM parameter paths of each alias family', () => {
    expect(aliasParameter(parseAlias('bottlerocket@latest'), '1.31', 'arm64')).toBe(
      '/aws/service/bottlerocket/aws-k8s-1.31/arm64/latest/image_id',
    );
    expect(aliasParameter(parseAlias('bottlerocket@v1.26.2'), '1.31', 'amd64')).toBe(
      '/aws/service/bottlerocket/aws-k8s-1.31/x86_64/1.26.2/image_id',
    );
    expect(aliasParameter(parseAlias('al2@latest'), '1.30', 'arm64')).toBe(
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/recommended/image_id',
    );
    expect(aliasParameter(parseAlias('al2@v20250101'), '1.30', 'amd64')).toBe(
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2/amazon-eks-node-1.30-v20250101/image_id',
    );
    expect(aliasParameter(parseAlias('al2023@v20250101'), '1.31', 'arm64', 'nvidia')).toBe(
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/nvidia/amazon-eks-node-al2023-arm64-nvidia-1.31-v20250101/image_id',
    );
    expect(aliasParameter(parseAlias('al2@latest'), '1.30', 'amd64', 'neuron')).toBe(
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/recommended/image_id',
    );
    expect(aliasParameter(parseAlias('bottlerocket@latest'), '1.31', 'amd64', 'nvidia')).toBe(
      '/aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/latest/image_id',
    );
    expect(aliasParameter(parseAlias('bottlerocket@latest'), '1.31', 'amd64', 'neuron')).toBeUndefined();
    expect(() => parseAlias('ubuntu@latest')).toThrow(/family one of al2023, al2, bottlerocket/);
    expect(() => parseAlias('al2023@20250101')).toThrow(/must be "latest" or start with "v"/);
  });

  it('creates, tags and fills the instance profile for a role, named deterministically', async () => {
    const r = await resolver.resolve(ec2NodeClass());
    const name = instanceProfileName('test-cluster', 'us-east-1', 'KarpenterNodeRole-test-cluster');
    expect(r.instanceProfile).toBe(name);
    expect(name).toMatch(/^karpless_test-cluster_[0-9a-f]{16}$/);
    expect(aws.iam.commandCalls(CreateInstanceProfileCommand)[0]?.args[0].input).toEqual({
      InstanceProfileName: name,
      Path: '/karpless/',
      Tags: [
        { Key: 'kubernetes.io/cluster/test-cluster', Value: 'owned' },
        { Key: 'karpless.dev/cluster', Value: 'test-cluster' },
      ],
    });
    expect(aws.iam.commandCalls(AddRoleToInstanceProfileCommand)[0]?.args[0].input).toEqual({
      InstanceProfileName: name,
      RoleName: 'KarpenterNodeRole-test-cluster',
    });
    // A second resolve (another class, same role) reuses the profile.
    await resolver.resolve(ec2NodeClass({}, 'other'));
    expect(aws.iam.commandCalls(CreateInstanceProfileCommand)).toHaveLength(1);
    expect(aws.iam.commandCalls(AddRoleToInstanceProfileCommand)).toHaveLength(1);
  });

  it('uses a named instanceProfile without touching IAM', async () => {
    const r = await resolver.resolve(ec2NodeClass({ role: undefined, instanceProfile: 'my-profile' }));
    expect(r.instanceProfile).toBe('my-profile');
    expect(aws.iam.calls()).toHaveLength(0);
  });

  it('is not Ready, with a reason and message, when nothing matches', async () => {
    const r = await resolver.resolve(ec2NodeClass({ subnetSelectorTerms: [{ tags: { nope: 'x' } }] }));
    expect(r.ready.status).toBe('False');
    expect(r.ready.reason).toBe('SubnetsNotFound');
    expect(r.ready.message).toContain(
      'EC2NodeClass default: no subnet matches subnetSelectorTerms [{"tags":{"nope":"x"}}]',
    );
    const noAmi = await resolver.resolve(ec2NodeClass({ amiSelectorTerms: [{ alias: 'al2@latest' }] }));
    expect(noAmi.ready).toMatchObject({ status: 'False', reason: 'AMIsNotFound' });
    const bad = await resolver.resolve(ec2NodeClass({ amiSelectorTerms: [{ alias: 'windows@latest' }] }));
    expect(bad.ready.message).toContain('amiSelectorTerms alias "windows@latest"');
  });

  it('caches for 60 s in the warm container', async () => {
    await resolver.resolve(ec2NodeClass());
    const calls = aws.ec2.calls().length;
    now += 59_000;
    await resolver.resolve(ec2NodeClass());
    expect(aws.ec2.calls().length).toBe(calls);
    now += 2_000;
    await resolver.resolve(ec2NodeClass());
    expect(aws.ec2.calls().length).toBeGreaterThan(calls);
  });
});
