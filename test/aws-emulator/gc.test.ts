// Garbage collection on moto_server: tags alone never get an instance terminated. An orphan launched from the
// cluster's Karpless launch template is terminated; one launched by someone else and given every tag Karpless
// writes is logged, counted as OrphansUnproven and left running (docs/aws.md ("Garbage collection")).
import { DescribeInstancesCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { beforeAll, describe, expect, it } from 'vitest';
import { AwsCloudProvider } from '../../shared/aws/cloud-provider';
import { instanceTags, toTagList } from '../../shared/aws/ec2/tags';
import { collectGarbage } from '../../shared/controllers/gc';
import { testCluster } from '../../testkit/aws/objects';
import { createTestbed } from '../../testkit/bed';
import { ec2NodeClass, nodeClaim, nodePool } from '../../testkit/builders';
import { makeInstanceType } from '../../testkit/instance-types';
import { type Emulator, emulator } from './emulator';
import { createTestNetwork, type TestNetwork } from './network';
import { relaunchStamped } from './stamped-launch';

const cluster = testCluster.name;
let aws: Emulator;
let net: TestNetwork;

beforeAll(async () => {
  aws = emulator();
  net = await createTestNetwork(aws.ec2, aws.iam, cluster);
});

const provider = () =>
  new AwsCloudProvider({
    cluster: testCluster,
    ec2: aws.ec2,
    ssm: aws.ssm,
    iam: aws.iam,
    instanceTypes: () => [],
    sleep: async () => {},
  });

/** Every tag Karpless writes on a claim's instance, so that only the proof of launch tells the two apart. */
const tagsOf = (name: string) =>
  toTagList(instanceTags(cluster, nodeClaim({ name, uid: `uid-${name}`, nodePool: 'default', nodeClass: 'default' })));

async function stateOf(instanceId: string) {
  const out = await aws.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  return out.Reservations?.[0]?.Instances?.[0]?.State?.Name;
}

describe('garbage collection on the emulator', () => {
  it('terminates an orphan launched from the cluster template and leaves one that only carries the tags', async () => {
    const cloud = provider();
    const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
    // A launch through Karpless creates the cluster's launch template.
    const launched = await cloud.create({
      claim: nodeClaim({ name: 'default-first', uid: `uid-first-${aws.account}` }),
      nodePool: nodePool(),
      nodeClass: ec2NodeClass({ amiSelectorTerms: [{ tags: { 'karpless-test': cluster } }], role: net.role }),
      instanceTypes: [makeInstanceType('m5.large', { onDemand: 0.096, zones })],
    });
    // Its claim record lost (a Lambda killed between CreateFleet and the write); as EC2 describes a fleet instance.
    const ours = await relaunchStamped(aws.ec2, cluster, launched.instanceId);
    // Someone else's instance, launched without the template and given every tag Karpless writes.
    const foreign = await run('default-forged');

    const t = createTestbed({ cluster });
    t.deps.cloud = cloud;
    // moto stamps launch times from the real clock; the grace period has passed for both.
    t.deps.clock = { now: () => Date.now() + 60_000 };
    const metrics: [string, number][] = [];
    t.deps.metric = (name, value) => metrics.push([name, value]);
    const warnings: string[] = [];
    t.deps.log = { ...t.deps.log, warn: (m, f) => warnings.push(`${m} ${String(f?.instanceId)}`) };

    const result = await collectGarbage(t.deps);
    expect(result.terminatedInstances).toEqual([ours]);
    expect(await stateOf(ours)).toMatch(/shutting-down|terminated/);
    expect(await stateOf(foreign)).toBe('running');
    expect(metrics).toContainEqual(['OrphansUnproven', 1]);
    expect(metrics).toContainEqual(['OrphanInstancesTerminated', 1]);
    expect(warnings).toContain(
      `orphan instance left alone: tagged for the cluster, no proof Karpless launched it ${foreign}`,
    );
  });
});

/** Someone else's RunInstances, without Karpless's launch template, tagged as Karpless tags a claim's instance. */
async function run(claimName: string): Promise<string> {
  const out = await aws.ec2.send(
    new RunInstancesCommand({
      ImageId: net.images.amd64,
      InstanceType: 'm5.large',
      MinCount: 1,
      MaxCount: 1,
      SubnetId: net.subnets[0]?.id,
      TagSpecifications: [{ ResourceType: 'instance', Tags: tagsOf(claimName) }],
    }),
  );
  const id = out.Instances?.[0]?.InstanceId;
  if (!id) throw new Error(`RunInstances returned no instance for ${claimName}`);
  return id;
}
