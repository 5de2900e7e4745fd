import {
  CreateLaunchTemplateCommand,
  DeleteLaunchTemplateCommand,
  DescribeLaunchTemplatesCommand,
} from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awsError, type FakeAws, fakeAws } from '../../testkit/aws/fake-aws';
import { testCluster } from '../../testkit/aws/objects';
import { fakeAwsProvider } from '../../testkit/aws/provider';
import { createTestbed } from '../../testkit/bed';
import { ec2NodeClass, nodeClaim, nodePool } from '../../testkit/builders';
import { makeInstanceType } from '../../testkit/instance-types';
import { collectGarbage } from '../controllers/gc';
import type { AwsCloudProvider } from './cloud-provider';

let aws: FakeAws;
let now = Date.parse('2026-01-01T12:00:00Z');
const minutes = (n: number) => n * 60_000;

const provider = () => fakeAwsProvider(aws, { instanceTypes: () => [], clock: { now: () => now } });

const launch = (cloud: AwsCloudProvider, name: string) =>
  cloud.create({
    claim: nodeClaim({ name }),
    nodePool: nodePool(),
    nodeClass: ec2NodeClass(),
    instanceTypes: [makeInstanceType('m5.large', { onDemand: 0.096 })],
  });

const prefix = `karpless/${testCluster.name}/`;

beforeEach(() => {
  aws = fakeAws();
  now = Date.parse('2026-01-01T12:00:00Z');
});
afterEach(() => aws.restore());

describe('AwsCloudProvider.deleteStaleLaunchTemplates', () => {
  it('deletes only old templates no live instance or recent launch uses', async () => {
    const cloud = provider();
    const instance = await launch(cloud, 'default-a');
    const usedHere = [...aws.state.templates.keys()][0] ?? '';
    // EC2 tags an instance with the template it was launched from.
    aws.state.instances.get(instance.instanceId)?.Tags?.push({ Key: 'aws:ec2launchtemplate:id', Value: 'lt-live' });
    now += minutes(10);
    const old = new Date(now - minutes(31));
    aws.ec2.on(DescribeLaunchTemplatesCommand).resolves({
      LaunchTemplates: [
        { LaunchTemplateName: `${prefix}stale`, LaunchTemplateId: 'lt-stale', CreateTime: old },
        { LaunchTemplateName: `${prefix}young`, LaunchTemplateId: 'lt-young', CreateTime: new Date(now - minutes(5)) },
        { LaunchTemplateName: `${prefix}live`, LaunchTemplateId: 'lt-live', CreateTime: old },
        { LaunchTemplateName: usedHere, LaunchTemplateId: 'lt-here', CreateTime: old },
        { LaunchTemplateName: `${prefix}undated`, LaunchTemplateId: 'lt-undated' },
        { LaunchTemplateName: 'karpless/other-cluster/x', LaunchTemplateId: 'lt-other', CreateTime: old },
      ],
    });
    aws.ec2.on(DeleteLaunchTemplateCommand).resolves({});

    expect(await cloud.deleteStaleLaunchTemplates()).toBe(1);
    expect(aws.ec2.commandCalls(DescribeLaunchTemplatesCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'tag:karpless.dev/cluster', Values: [testCluster.name] },
    ]);
    expect(aws.ec2.commandCalls(DeleteLaunchTemplateCommand).map((c) => c.args[0].input)).toEqual([
      { LaunchTemplateName: `${prefix}stale` },
    ]);

    // Later the young one has aged and this container has not used its own for the stale age: both go (the mock
    // still lists the deleted one, so it is asked again).
    now += minutes(31);
    expect(await cloud.deleteStaleLaunchTemplates()).toBe(3);
    expect(aws.ec2.commandCalls(DeleteLaunchTemplateCommand).map((c) => c.args[0].input.LaunchTemplateName)).toEqual([
      `${prefix}stale`,
      `${prefix}stale`,
      `${prefix}young`,
      usedHere,
    ]);
  });

  it('re-creates a template deleted under a warm container and launches anyway', async () => {
    const cloud = provider();
    await launch(cloud, 'default-a');
    // Cleanup elsewhere deleted the template this container still knows.
    aws.state.templates.clear();
    aws.state.fleetThrows.push(awsError('InvalidLaunchTemplateName.NotFoundException'));
    const second = await launch(cloud, 'default-b');
    expect(second.instanceId).toBeTruthy();
    expect(aws.ec2.commandCalls(CreateLaunchTemplateCommand)).toHaveLength(2);
    expect(aws.state.templates.size).toBe(1);
  });

  it('is called by garbage collection, which reports the count', async () => {
    const t = createTestbed();
    const cloud = provider();
    t.deps.cloud = cloud;
    aws.ec2.on(DescribeLaunchTemplatesCommand).resolves({
      LaunchTemplates: [
        { LaunchTemplateName: `${prefix}stale`, LaunchTemplateId: 'lt-stale', CreateTime: new Date(now - minutes(60)) },
      ],
    });
    aws.ec2.on(DeleteLaunchTemplateCommand).resolves({});
    const result = await collectGarbage(t.deps);
    expect(result.launchTemplatesDeleted).toBe(1);
    expect(aws.ec2.commandCalls(DeleteLaunchTemplateCommand)).toHaveLength(1);
  });
});
