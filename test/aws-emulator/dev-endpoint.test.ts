// `karpless dev --aws-endpoint` against the run's moto_server: the real handlers launch tagged instances into
// moto's default VPC once it is tagged, and a second run against the same endpoint and cluster reads its state back
// from DynamoDB and EC2 and launches nothing for the same pods. The command's clients carry no account header, so
// this file owns moto's default account.
import {
  CreateTagsCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
} from '@aws-sdk/client-ec2';
import { CreateRoleCommand } from '@aws-sdk/client-iam';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bufferIO } from '../../cli/io';
import { main } from '../../cli/main';
import { type Emulator, emulator } from './emulator';

const MOTO_DEFAULT_ACCOUNT = '123456789012';
const CLUSTER = 'devtest';
let aws: Emulator;

beforeAll(async () => {
  aws = emulator({ account: MOTO_DEFAULT_ACCOUNT });
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'testing');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'testing');
  // What docs/aws.md asks of the user: tag the default VPC's subnets and security group, create the node role.
  const subnets = await aws.ec2.send(
    new DescribeSubnetsCommand({ Filters: [{ Name: 'default-for-az', Values: ['true'] }] }),
  );
  const groups = await aws.ec2.send(
    new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: ['default'] }] }),
  );
  const ids = [
    ...(subnets.Subnets ?? []).map((s) => s.SubnetId as string),
    ...(groups.SecurityGroups ?? []).map((g) => g.GroupId as string),
  ];
  await aws.ec2.send(
    new CreateTagsCommand({ Resources: ids, Tags: [{ Key: 'karpenter.sh/discovery', Value: 'demo' }] }),
  );
  await aws.iam.send(new CreateRoleCommand({ RoleName: 'KarpenterNodeRole-demo', AssumeRolePolicyDocument: '{}' }));
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const args = ['dev', '-f', 'examples/cluster/web.yaml', '-f', 'examples/aws-endpoint/', '--cluster', CLUSTER];

async function dev(extra: string[] = []) {
  const io = bufferIO();
  const code = await main([...args, '--aws-endpoint', aws.endpoint, ...extra], io);
  return { code, out: io.stdout.join(''), err: io.stderr.join('') };
}

async function clusterInstances() {
  const out = await aws.ec2.send(
    new DescribeInstancesCommand({
      Filters: [
        { Name: 'tag:karpless.dev/cluster', Values: [CLUSTER] },
        { Name: 'instance-state-name', Values: ['pending', 'running'] },
      ],
    }),
  );
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
}

describe('karpless dev --aws-endpoint', () => {
  it('creates its queues and table, launches tagged instances, and lists them in the summary', async () => {
    const { code, out } = await dev();
    expect(code).toBe(0);
    expect(out).toContain(`created table karpless-${CLUSTER}`);
    expect(out).toContain(`created queue karpless-${CLUSTER}-events.fifo`);
    expect(out).toMatch(/pods: +10 bound, 0 pending/);
    const instances = await clusterInstances();
    expect(instances.length).toBeGreaterThan(0);
    const launched = out.match(/launched: +(\d+) instance\(s\) this run/);
    expect(Number(launched?.[1])).toBe(instances.length);
    for (const i of instances) {
      expect(out).toContain(i.InstanceId as string);
      const tags = Object.fromEntries((i.Tags ?? []).map((t) => [t.Key, t.Value]));
      expect(tags).toMatchObject({
        'karpless.dev/cluster': CLUSTER,
        team: 'platform',
        'karpenter.sh/nodepool': 'general',
      });
      expect(['ami-0ed094fb1304fd857', 'ami-0d6fc8f787cd9a417']).toContain(i.ImageId);
    }
  });

  it('launches nothing on a second run for the same pods: claims and instances are read back', async () => {
    const before = (await clusterInstances()).map((i) => i.InstanceId).sort();
    const { code, out } = await dev();
    expect(code).toBe(0);
    expect(out).not.toContain('created table');
    expect(out).toMatch(new RegExp(`read back: +${before.length} node\\(s\\) of an earlier run`));
    expect(out).toMatch(/launched: +0 instance\(s\) this run/);
    expect(out).toMatch(/pods: +10 bound, 0 pending/);
    expect((await clusterInstances()).map((i) => i.InstanceId).sort()).toEqual(before);
  });

  it('rejects an endpoint that is not a URL, and a missing region, as usage errors', async () => {
    const io = bufferIO();
    expect(await main([...args, '--aws-endpoint', 'localhost:5000'], io)).toBe(2);
    expect(io.stderr.join('')).toMatch(/--aws-endpoint: "localhost:5000" must be an http/);
    vi.stubEnv('AWS_REGION', '');
    vi.stubEnv('AWS_DEFAULT_REGION', '');
    const noRegion = await dev();
    vi.stubEnv('AWS_REGION', 'us-east-1');
    expect(noRegion.code).toBe(2);
    expect(noRegion.err).toMatch(/set AWS_REGION/);
  });
});
