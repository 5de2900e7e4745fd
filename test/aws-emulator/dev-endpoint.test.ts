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

// The command docs/aws.md shows, on examples/cluster as it is (alias al2023@latest). moto has no NVIDIA image, so
// the GPU job (train-0, train-1) stays pending there; three virtual minutes are enough for the rest to bind.
const args = ['dev', '-f', 'examples/cluster', '--cluster', CLUSTER, '--until', '3m'];
const GPU_PODS = ['train-0', 'train-1'];
/** A run makes a few hundred calls to moto_server; on a loaded machine that is well over the default 30 s. */
const DEV_TIMEOUT = 240_000;

async function dev(extra: string[] = [], base = args) {
  const io = bufferIO();
  const code = await main([...base, '--aws-endpoint', aws.endpoint, ...extra], io);
  return { code, out: io.stdout.join(''), err: io.stderr.join('') };
}

async function clusterInstances(cluster = CLUSTER) {
  const out = await aws.ec2.send(
    new DescribeInstancesCommand({
      Filters: [
        { Name: 'tag:karpless.dev/cluster', Values: [cluster] },
        { Name: 'instance-state-name', Values: ['pending', 'running'] },
      ],
    }),
  );
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
}

/** moto 5.2.1's us-east-1 Amazon Linux 2023 images, served as /aws/service/ami-amazon-linux-latest/al2023-*. */
const MOTO_AL2023 = { x86_64: 'ami-0ed094fb1304fd857', arm64: 'ami-0d6fc8f787cd9a417' };

describe('karpless dev -f examples/cluster --aws-endpoint', () => {
  it(
    'creates its queues and table, launches tagged instances, lists them, and exits 1 for the GPU pods',
    async () => {
      const { code, out, err } = await dev(['-v']);
      expect(code).toBe(1);
      // While it runs, stderr says what it waits for; at the end, each pending pod gets its reason.
      expect(err).toMatch(
        /\] waiting for 2 pending pod\(s\) to bind \(train-0, train-1\); virtual time (\d+m)?\d+s of 3m00s \(--until\)/,
      );
      for (const pod of GPU_PODS) {
        expect(out).toMatch(
          new RegExp(`\\n {4}ml/${pod}: Failed to schedule pod, .*nvidia\\.com/gpu.*\\(FailedScheduling at `),
        );
      }
      // One timeline: every line before the summary, log record or event, carries a stamp, in order.
      const timeline = (out.split('\nsummary\n')[0] ?? '').split('\n').filter((line) => line !== '');
      const stamps = timeline.map((line) => Number(line.match(/^\[\+ *([\d.]+)s\] /)?.[1]));
      expect(timeline.filter((_, i) => Number.isNaN(stamps[i]))).toEqual([]);
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
      // -v prints each log record with its fields.
      expect(out).toMatch(/\] {5}INFO {2}\[provisioner\] launched nodeClaim=general-\w+ instanceId=i-[0-9a-f]+ /);
      expect(out).toContain(`created table karpless-${CLUSTER}`);
      expect(out).toContain(`created queue karpless-${CLUSTER}-events.fifo`);
      // The alias reads the EKS parameter; moto lacks it, so dev says which Amazon Linux parameter stood in.
      expect(out).toContain(
        'the endpoint has no /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id;' +
          ` using its /aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64 (${MOTO_AL2023.x86_64})`,
      );
      expect(out).toMatch(new RegExp(`pods: +13 bound, 2 pending \\(${GPU_PODS.join(', ')}\\)`));
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
        expect(i.ImageId).toBe(i.Architecture === 'arm64' ? MOTO_AL2023.arm64 : MOTO_AL2023.x86_64);
      }
    },
    DEV_TIMEOUT,
  );

  it(
    'launches nothing on a second run for the same pods: claims and instances are read back',
    async () => {
      const before = (await clusterInstances()).map((i) => i.InstanceId).sort();
      const { out } = await dev();
      expect(out).not.toContain('created table');
      expect(out).toMatch(new RegExp(`read back: +${before.length} node\\(s\\) of an earlier run`));
      expect(out).toMatch(/launched: +0 instance\(s\) this run/);
      expect(out).toMatch(/pods: +13 bound, 2 pending/);
      expect((await clusterInstances()).map((i) => i.InstanceId).sort()).toEqual(before);
    },
    DEV_TIMEOUT,
  );

  it(
    'exits 0 with an EC2NodeClass that selects its images by id, once every pod is bound',
    async () => {
      const byId = ['dev', '-f', 'examples/cluster/web.yaml', '-f', 'examples/aws-endpoint/', '--cluster', 'devbyid'];
      const { code, out } = await dev([], byId);
      expect(code).toBe(0);
      expect(out).toMatch(/pods: +10 bound, 0 pending/);
      expect(out).not.toContain('the endpoint has no');
      const instances = await clusterInstances('devbyid');
      expect(instances.length).toBeGreaterThan(0);
      for (const i of instances) expect(Object.values(MOTO_AL2023)).toContain(i.ImageId);
    },
    DEV_TIMEOUT,
  );

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
