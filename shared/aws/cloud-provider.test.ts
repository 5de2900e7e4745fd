// aws-sdk-client-mock (testkit/aws/fake-aws.ts): ClientToken idempotency, insufficient capacity, throttling, spot and IAM refusals are what moto cannot produce; the plain launch path runs on the emulator in test/aws-emulator/launch.test.ts.
import { CreateFleetCommand, CreateLaunchTemplateCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { CreateInstanceProfileCommand } from '@aws-sdk/client-iam';
import { DecodeAuthorizationMessageCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { awsError, type FakeAws, fakeAws } from '../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../testkit/aws/provider';
import { ec2NodeClass, nodeClaim, nodePool } from '../../testkit/builders';
import { makeInstanceType } from '../../testkit/instance-types';
import type { InstanceType, UnavailableOffering } from '../catalog/types';
import { InsufficientCapacityError, LaunchError } from '../errors';
import type { LaunchRequest } from '../ports';
import type { AwsCloudProviderOptions } from './cloud-provider';

let aws: FakeAws;
let now = Date.parse('2026-01-01T00:00:00Z');

function provider(extra: Partial<AwsCloudProviderOptions> = {}) {
  return fakeAwsProvider(aws, { instanceTypes: () => [], clock: { now: () => now }, ...extra });
}

const types: InstanceType[] = [
  makeInstanceType('m5.large', { onDemand: 0.096, spot: { 'us-east-1a': 0.04, 'us-east-1b': 0.041 } }),
  makeInstanceType('m6g.large', { arch: 'arm64', onDemand: 0.077 }),
  makeInstanceType('c5.large', { onDemand: 0.085, zones: ['us-east-1a', 'us-east-1d'] }),
];

const claimNamed = (name: string) =>
  nodeClaim({
    name,
    taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
    startupTaints: [{ key: 'init', effect: 'NoSchedule' }],
  });

function request(overrides: Partial<LaunchRequest> = {}): LaunchRequest {
  return {
    claim: claimNamed('default-abc12'),
    nodePool: nodePool(),
    nodeClass: ec2NodeClass({ tags: { team: 'web' } }),
    instanceTypes: types,
    ...overrides,
  };
}

beforeEach(() => {
  aws = fakeAws();
});
afterEach(() => aws.restore());

const fleetInput = (i = 0) => aws.ec2.commandCalls(CreateFleetCommand)[i]?.args[0].input;

describe('AwsCloudProvider.create', () => {
  it('turns a claim into one CreateFleet of the right shape', async () => {
    const instance = await provider().create(request());
    const input = fleetInput();
    expect(input).toMatchObject({
      Type: 'instant',
      ClientToken: 'uid-default-abc12',
      TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'spot' },
      SpotOptions: { AllocationStrategy: 'price-capacity-optimized' },
    });
    expect(input?.OnDemandOptions).toBeUndefined();
    // Spot is offered only for m5.large; one override per zone, with the zone's best subnet.
    expect(input?.LaunchTemplateConfigs).toHaveLength(1);
    expect(input?.LaunchTemplateConfigs?.[0]?.Overrides).toEqual([
      { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1a', SubnetId: 'subnet-a2' },
      { InstanceType: 'm5.large', AvailabilityZone: 'us-east-1b', SubnetId: 'subnet-b1' },
    ]);
    const expectedTags = [
      { Key: 'Name', Value: 'default/default-abc12' },
      { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: 'default' },
      { Key: 'karpenter.sh/nodeclaim', Value: 'default-abc12' },
      { Key: 'karpenter.sh/nodepool', Value: 'default' },
      { Key: 'karpless.dev/cluster', Value: 'test-cluster' },
      { Key: 'karpless.dev/nodeclaim-uid', Value: 'uid-default-abc12' },
      { Key: 'kubernetes.io/cluster/test-cluster', Value: 'owned' },
      { Key: 'team', Value: 'web' },
    ];
    expect(input?.TagSpecifications).toEqual([
      { ResourceType: 'instance', Tags: expectedTags },
      { ResourceType: 'volume', Tags: expectedTags },
      { ResourceType: 'fleet', Tags: expectedTags },
      { ResourceType: 'spot-instances-request', Tags: expectedTags },
    ]);
    expect(instance).toMatchObject({
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'spot',
      pricePerHour: 0.04,
      imageId: 'ami-amd-new',
      subnetId: 'subnet-a2',
      providerID: `aws:///us-east-1a/${instance.instanceId}`,
    });
  });

  it('creates a launch template named by its configuration, with userData, profile, IMDSv2 and ENI tags', async () => {
    await provider().create(request());
    const lt = aws.ec2.commandCalls(CreateLaunchTemplateCommand)[0]?.args[0].input;
    expect(lt?.LaunchTemplateName).toMatch(/^karpless\/test-cluster\/[0-9a-f]{32}$/);
    expect(fleetInput()?.LaunchTemplateConfigs?.[0]?.LaunchTemplateSpecification).toEqual({
      LaunchTemplateName: lt?.LaunchTemplateName,
      Version: '$Latest',
    });
    const data = lt?.LaunchTemplateData;
    expect(data).toMatchObject({
      ImageId: 'ami-amd-new',
      SecurityGroupIds: ['sg-node'],
      IamInstanceProfile: { Name: expect.stringMatching(/^karpless_test-cluster_/) },
      MetadataOptions: {
        HttpEndpoint: 'enabled',
        HttpProtocolIpv6: 'disabled',
        HttpPutResponseHopLimit: 1,
        HttpTokens: 'required',
      },
      BlockDeviceMappings: [
        {
          DeviceName: '/dev/xvda',
          Ebs: { VolumeSize: 20, VolumeType: 'gp3', Encrypted: true, DeleteOnTermination: true },
        },
      ],
    });
    const userData = Buffer.from(data?.UserData ?? '', 'base64').toString();
    expect(userData).toContain(
      '--register-with-taints=dedicated=web:NoSchedule,init:NoSchedule,karpenter.sh/unregistered:NoExecute',
    );
    expect(userData).toContain('karpenter.sh/capacity-type=spot');
    expect(data?.TagSpecifications?.[0]?.ResourceType).toBe('network-interface');
    expect(lt?.TagSpecifications?.[0]?.Tags).toContainEqual({
      Key: 'kubernetes.io/cluster/test-cluster',
      Value: 'owned',
    });
  });

  it('reuses the launch template for the same configuration, also when another Lambda created it', async () => {
    await provider().create(request());
    const p2 = provider();
    await p2.create(request({ claim: claimNamed('second') }));
    await p2.create(request({ claim: claimNamed('third') }));
    const calls = aws.ec2.commandCalls(CreateLaunchTemplateCommand);
    // p2 tried once (AlreadyExists, handled), then remembered the name.
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((c) => c.args[0].input.LaunchTemplateName)).size).toBe(1);
    expect(aws.ec2.commandCalls(CreateFleetCommand)).toHaveLength(3);
  });

  it('uses on-demand with lowest-price when the claim requires it, one template per architecture', async () => {
    const claim = nodeClaim({
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
    });
    const instance = await provider().create(request({ claim }));
    const input = fleetInput();
    expect(input?.OnDemandOptions).toEqual({ AllocationStrategy: 'lowest-price' });
    expect(input?.SpotOptions).toBeUndefined();
    expect(input?.TargetCapacitySpecification?.DefaultTargetCapacityType).toBe('on-demand');
    const overrides = input?.LaunchTemplateConfigs?.map((c) =>
      c.Overrides?.map((o) => `${o.InstanceType}@${o.AvailabilityZone}`),
    );
    // c5.large in us-east-1d has no subnet there, so it is not offered to EC2.
    expect(overrides).toEqual([
      ['m5.large@us-east-1a', 'm5.large@us-east-1b', 'c5.large@us-east-1a'],
      ['m6g.large@us-east-1a', 'm6g.large@us-east-1b'],
    ]);
    expect(instance.capacityType).toBe('on-demand');
  });

  it('boots GPU types from the NVIDIA image through their own launch template', async () => {
    const g5 = makeInstanceType('g5.xlarge', { onDemand: 1.006 });
    g5.info.gpu = { count: 1, name: 'a10g', manufacturer: 'nvidia', memoryMiB: 24576 };
    const claim = nodeClaim({
      requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
    });
    await provider().create(request({ claim, instanceTypes: [types[0] as InstanceType, g5] }));
    const configs = fleetInput()?.LaunchTemplateConfigs ?? [];
    const images = aws.ec2
      .commandCalls(CreateLaunchTemplateCommand)
      .map((c) => [c.args[0].input.LaunchTemplateName, c.args[0].input.LaunchTemplateData?.ImageId]);
    const imageOf = new Map(images as [string, string][]);
    expect(
      configs.map((c) => [
        imageOf.get(c.LaunchTemplateSpecification?.LaunchTemplateName ?? ''),
        c.Overrides?.map((o) => o.InstanceType),
      ]),
    ).toEqual([
      ['ami-amd-nvidia', ['g5.xlarge', 'g5.xlarge']],
      ['ami-amd-new', ['m5.large', 'm5.large']],
    ]);
  });

  it('falls back to on-demand when spot is allowed but no spot offering is available', async () => {
    const noSpot = types.map((t) => ({
      ...t,
      offerings: t.offerings.map((o) => (o.capacityType === 'spot' ? { ...o, available: false } : o)),
    }));
    await provider().create(request({ instanceTypes: noSpot }));
    expect(fleetInput()?.TargetCapacitySpecification?.DefaultTargetCapacityType).toBe('on-demand');
  });

  it('sends at most 60 instance types', async () => {
    const many = Array.from({ length: 80 }, (_, i) => makeInstanceType(`m5.size${i}`, { onDemand: 0.1 + i / 1000 }));
    await provider().create(request({ instanceTypes: many }));
    const names = new Set<string | undefined>(
      fleetInput()?.LaunchTemplateConfigs?.flatMap((c) => c.Overrides?.map((o) => o.InstanceType)),
    );
    expect(names.size).toBe(60);
    expect(names.has('m5.size0')).toBe(true);
    expect(names.has('m5.size60')).toBe(false);
  });

  it('returns the same instance for a replayed claim and launches nothing new', async () => {
    const p = provider();
    const first = await p.create(request());
    const again = await provider().create(request());
    expect(again.instanceId).toBe(first.instanceId);
    expect(aws.ec2.commandCalls(CreateFleetCommand)).toHaveLength(1);
    expect(aws.state.instances.size).toBe(1);
  });

  it('recovers the instance when CreateFleet reports an idempotency mismatch for the claim token', async () => {
    const p = provider();
    const first = await p.create(request());
    // The tag lookup misses (tags not yet visible), then EC2 refuses the reused token with other parameters.
    const instance = aws.state.instances.get(first.instanceId)!;
    const tags = instance.Tags;
    instance.Tags = [];
    aws.state.onFleetCall = () => {
      instance.Tags = tags;
    };
    aws.state.fleetThrows.push(awsError('IdempotentParameterMismatch'));
    const again = await p.create(request({ instanceTypes: types.slice(0, 1) }));
    expect(again.instanceId).toBe(first.instanceId);
    expect(aws.state.instances.size).toBe(1);
  });

  it('raises InsufficientCapacityError naming every refused offering when nothing launches', async () => {
    aws.state.noCapacity.add('m5.large/us-east-1a/spot').add('m5.large/us-east-1b/spot');
    const err = await provider()
      .create(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCapacityError);
    expect((err as InsufficientCapacityError).offerings).toEqual([
      { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', reason: 'InsufficientInstanceCapacity' },
      { instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot', reason: 'InsufficientInstanceCapacity' },
    ]);
  });

  it('treats UnfulfillableCapacity / MaxSpotInstanceCountExceeded without overrides as all offerings refused', async () => {
    aws.state.nextFleetErrors.push({
      code: 'MaxSpotInstanceCountExceeded',
      message: 'Max spot instance count exceeded',
    });
    const err = (await provider()
      .create(request())
      .catch((e: unknown) => e)) as InsufficientCapacityError;
    expect(err).toBeInstanceOf(InsufficientCapacityError);
    expect(err.offerings.map((o) => `${o.instanceType}/${o.zone}/${o.capacityType}`)).toEqual([
      'm5.large/us-east-1a/spot',
      'm5.large/us-east-1b/spot',
    ]);
  });

  it('handles a partial fleet result: returns the instance and reports the refused offerings', async () => {
    aws.state.noCapacity.add('m5.large/us-east-1a/spot');
    const seen: UnavailableOffering[] = [];
    const instance = await provider({ onUnavailable: (o) => void seen.push(...o) }).create(request());
    expect(instance.zone).toBe('us-east-1b');
    expect(seen).toEqual([
      {
        instanceType: 'm5.large',
        zone: 'us-east-1a',
        capacityType: 'spot',
        reason: 'InsufficientInstanceCapacity',
        expiresAt: now + 180_000,
      },
    ]);
  });

  it('explains a missing spot service-linked role', async () => {
    aws.state.nextFleetErrors.push({
      code: 'AuthFailure.ServiceLinkedRoleCreationNotPermitted',
      message: 'not permitted',
    });
    const err = (await provider()
      .create(request())
      .catch((e: unknown) => e)) as LaunchError;
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.kind).toBe('service-linked-role');
    expect(err.message).toContain('create-service-linked-role --aws-service-name spot.amazonaws.com');
  });

  it('explains a spot-disabled account', async () => {
    aws.state.nextFleetErrors.push({
      code: 'UnsupportedOperation',
      message: 'Spot instances are not supported for this account',
    });
    const err = (await provider()
      .create(request())
      .catch((e: unknown) => e)) as LaunchError;
    expect(err.kind).toBe('spot-disabled');
    expect(err.retryable).toBe(false);
  });

  it('retries throttling with backoff, then gives up with a retryable LaunchError', async () => {
    const sleep = vi.fn(async () => {});
    aws.state.fleetThrows.push(awsError('RequestLimitExceeded'), awsError('RequestLimitExceeded'));
    const instance = await provider({ sleep }).create(request());
    expect(instance.instanceId).toMatch(/^i-/);
    expect(sleep).toHaveBeenCalledTimes(2);
    aws.state.fleetThrows.push(...Array.from({ length: 4 }, () => awsError('RequestLimitExceeded')));
    const err = (await provider({ sleep })
      .create(request({ claim: nodeClaim({ name: 'other' }) }))
      .catch((e: unknown) => e)) as LaunchError;
    expect(err.kind).toBe('throttled');
    expect(err.retryable).toBe(true);
  });

  it('names the missing permission, decoding the authorization message when it can', async () => {
    const sts = mockClient(STSClient);
    sts.on(DecodeAuthorizationMessageCommand).resolves({
      DecodedMessage: JSON.stringify({
        allowed: false,
        context: { action: 'ec2:RunInstances', resource: 'arn:aws:ec2:us-east-1:1:instance/*' },
      }),
    });
    try {
      aws.state.fleetThrows.push(
        awsError(
          'UnauthorizedOperation',
          'You are not authorized to perform this operation. Encoded authorization failure message: AbC123',
        ),
      );
      const err = (await provider({ sts: new STSClient({ region: 'us-east-1' }) })
        .create(request())
        .catch((e: unknown) => e)) as LaunchError;
      expect(err.kind).toBe('unauthorized');
      expect(err.message).toContain('missing IAM permission ec2:RunInstances on arn:aws:ec2:us-east-1:1:instance/*');
      expect(sts.commandCalls(DecodeAuthorizationMessageCommand)[0]?.args[0].input).toEqual({
        EncodedMessage: 'AbC123',
      });
    } finally {
      sts.restore();
    }
    aws.state.nextFleetErrors.push({
      code: 'UnauthorizedOperation',
      message: 'You are not authorized to perform: iam:PassRole',
    });
    const err2 = (await provider()
      .create(request())
      .catch((e: unknown) => e)) as LaunchError;
    expect(err2.message).toContain('missing IAM permission iam:PassRole');
    aws.state.fleetThrows.push(awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.'));
    const err3 = (await provider()
      .create(request())
      .catch((e: unknown) => e)) as LaunchError;
    expect(err3.message).toContain('missing IAM permission ec2:CreateFleet');
  });

  it('refuses to launch with a node class that is not ready, saying why', async () => {
    const err = (await provider()
      .create(request({ nodeClass: ec2NodeClass({ securityGroupSelectorTerms: [{ id: 'sg-missing' }] }) }))
      .catch((e: unknown) => e)) as LaunchError;
    expect(err.kind).toBe('invalid-config');
    expect(err.message).toContain('no security group matches');
    expect(aws.ec2.commandCalls(CreateFleetCommand)).toHaveLength(0);
  });
});

describe('AwsCloudProvider instances', () => {
  it('gets, lists by cluster tag and terminates idempotently', async () => {
    const p = provider();
    const a = await p.create(request());
    expect((await p.get(a.instanceId))?.instanceId).toBe(a.instanceId);
    expect((await p.list()).map((i) => i.instanceId)).toEqual([a.instanceId]);
    await p.delete(a.instanceId);
    expect((await p.get(a.instanceId))?.state).toBe('terminated');
    expect(await p.list()).toEqual([]);
    await p.delete(a.instanceId);
    await p.delete('i-doesnotexist');
    expect(aws.ec2.commandCalls(TerminateInstancesCommand)).toHaveLength(3);
    expect(await p.get('i-doesnotexist')).toBeUndefined();
  });

  it('reports drift when the AMI, subnets or security groups resolve differently', async () => {
    const p = provider();
    const nodeClass = ec2NodeClass();
    const instance = await p.create(request({ nodeClass }));
    const claim = nodeClaim({ instanceId: instance.instanceId });
    expect(await p.isDrifted(claim, nodeClass)).toBeUndefined();
    aws.state.ssm['/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id'] =
      'ami-custom';
    now += 61_000;
    expect(await p.isDrifted(claim, nodeClass)).toMatch(/^AMIDrift: instance runs ami-amd-new/);
    const moved = ec2NodeClass({
      subnetSelectorTerms: [{ id: 'subnet-b1' }],
      amiSelectorTerms: [{ id: 'ami-amd-new' }],
      amiFamily: 'AL2023',
    });
    expect(await p.isDrifted(claim, moved)).toMatch(/^SubnetDrift/);
    const groups = ec2NodeClass({
      securityGroupSelectorTerms: [{ id: 'sg-extra' }],
      amiSelectorTerms: [{ id: 'ami-amd-new' }],
      amiFamily: 'AL2023',
    });
    expect(await p.isDrifted(claim, groups)).toMatch(/^SecurityGroupDrift/);
  });
});

describe('AwsCloudProvider pre-launch failures', () => {
  it('names the IAM action when instance-profile creation is denied', async () => {
    aws.iam
      .on(CreateInstanceProfileCommand)
      .rejects(
        awsError(
          'AccessDenied',
          'User: arn:aws:sts::1:assumed-role/karpless/fn is not authorized to perform: iam:CreateInstanceProfile on resource: arn:aws:iam::1:instance-profile/karpless/x',
        ),
      );
    const err = (await provider()
      .create(request())
      .catch((e: unknown) => e)) as LaunchError;
    expect(err).toBeInstanceOf(LaunchError);
    expect(err.kind).toBe('unauthorized');
    expect(err.message).toContain('missing IAM permission iam:CreateInstanceProfile');
  });

  it('names ec2:CreateLaunchTemplate when template creation is denied', async () => {
    aws.ec2
      .on(CreateLaunchTemplateCommand)
      .rejects(awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.'));
    const err = (await provider()
      .create(request())
      .catch((e: unknown) => e)) as LaunchError;
    expect(err.kind).toBe('unauthorized');
    expect(err.message).toContain('ec2:CreateLaunchTemplate');
    expect(aws.ec2.commandCalls(CreateFleetCommand)).toHaveLength(0);
  });

  it('reports user data that cannot be merged as invalid configuration', async () => {
    const nodeClass = ec2NodeClass({
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      userData: '[settings\nbroken',
    });
    const err = (await provider()
      .create(request({ nodeClass }))
      .catch((e: unknown) => e)) as LaunchError;
    expect(err.kind).toBe('invalid-config');
    expect(err.message).toContain('Bottlerocket userData must be TOML');
  });
});
