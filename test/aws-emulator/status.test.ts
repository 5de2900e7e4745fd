// `karpless status` against the run's moto_server, with the stacks of the two clusters of clusters.example.yaml
// deployed into moto's CloudFormation (their tables and queues are the stacks' own). moto creates no alarms from a
// template, so the test puts the alarms the stack would (its naming and descriptions) and drives them to ALARM.
// The command's clients carry no account header, so the stacks live in moto's default account, in the two
// clusters' regions (us-west-2, eu-west-1), which no other file of the suite uses there.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { Aspects } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bufferIO } from '../../cli/io';
import { main } from '../../cli/main';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import type { ClusterStatus } from '../../shared/aws/status/read';
import { ClusterStack } from '../../stacks/cluster-stack';
import { loadClusters } from '../../stacks/config';
import { MotoCompatibility } from '../../stacks/testing/moto-compat';
import { STUB_ENTRY, testApp } from '../../stacks/testing/synth';
import { nodeClaim } from '../../testkit/builders';
import { CloudFormationQuery } from './cloudformation';
import { type Emulator, emulator } from './emulator';

const MOTO_DEFAULT_ACCOUNT = '123456789012';
const EXAMPLE = 'clusters.example.yaml';
const clusters = loadClusters(EXAMPLE);
const at = (name: string) => clusters.find((c) => c.name === name) as (typeof clusters)[number];
const aws: Record<string, Emulator> = {};
const outputs: Record<string, Record<string, string>> = {};
const resources: Record<string, Record<string, string>> = {};

const cloudwatch = (e: Emulator) => e.client((c) => new CloudWatchClient(c));

async function deploy(name: string): Promise<void> {
  const config = { ...at(name), account: MOTO_DEFAULT_ACCOUNT };
  const e = emulator({ account: MOTO_DEFAULT_ACCOUNT, region: config.region });
  aws[name] = e;
  const stack = new ClusterStack(testApp(), { config, entryOverride: STUB_ENTRY });
  Aspects.of(stack).add(new MotoCompatibility());
  await e.ssm.send(
    new PutParameterCommand({ Name: '/cdk-bootstrap/hnb659fds/version', Value: '30', Type: 'String', Overwrite: true }),
  );
  const cfn = new CloudFormationQuery(e);
  await cfn.call('CreateStack', {
    StackName: stack.stackName,
    TemplateBody: JSON.stringify(Template.fromStack(stack).toJSON()),
    'Capabilities.member.1': 'CAPABILITY_NAMED_IAM',
  });
  const sdk = e.client((c) => new CloudFormationClient(c));
  const described = await sdk.send(new DescribeStacksCommand({ StackName: stack.stackName }));
  outputs[name] = Object.fromEntries(
    (described.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
  );
  const listed = await sdk.send(new ListStackResourcesCommand({ StackName: stack.stackName }));
  resources[name] = Object.fromEntries(
    (listed.StackResourceSummaries ?? []).map((m) => [m.LogicalResourceId ?? '', m.PhysicalResourceId ?? '']),
  );
}

const queueUrl = (cluster: string, logicalPrefix: string) =>
  Object.entries(resources[cluster] ?? {}).find(([id]) => id.startsWith(logicalPrefix))?.[1] as string;

/** An alarm as CloudFormation names the stack's (`<stack>-<logical id>-<suffix>`), with its description. */
async function alarm(e: Emulator, name: string, description: string, state: 'ALARM' | 'OK') {
  const cw = cloudwatch(e);
  await cw.send(
    new PutMetricAlarmCommand({
      AlarmName: name,
      AlarmDescription: description,
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 1,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    }),
  );
  await cw.send(new SetAlarmStateCommand({ AlarmName: name, StateValue: state, StateReason: `${state} for the test` }));
}

// Ages are printed in whole hours past two hours, so a slow deploy in beforeAll cannot change what is printed.
const NOW = Date.now();
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();

beforeAll(async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'testing');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'testing');
  await Promise.all(clusters.map((c) => deploy(c.name)));
  const demo = aws.demo as Emulator;
  const store = new DynamoNodeClaimStore({
    tableName: outputs.demo?.TableName as string,
    cluster: 'demo',
    client: demo.documents,
  });
  const live = { state: 'Initialized' as const, stateTimes: { Initialized: minutesAgo(30) } };
  await store.create(
    nodeClaim({ name: 'general-a', nodePool: 'general', capacityType: 'spot', pricePerHour: 0.04, ...live }),
  );
  await store.create(
    nodeClaim({ name: 'general-b', nodePool: 'general', capacityType: 'spot', pricePerHour: 0.05, ...live }),
  );
  await store.create(
    nodeClaim({ name: 'general-c', nodePool: 'general', capacityType: 'on-demand', pricePerHour: 0.096, ...live }),
  );
  await store.create(nodeClaim({ name: 'gpu-a', nodePool: 'gpu', state: 'Launched', capacityType: 'on-demand' }));
  await store.create(
    nodeClaim({ name: 'old', state: 'Terminated', pricePerHour: 9, stateTimes: { Terminated: minutesAgo(5) } }),
  );
  for (const [id, m] of [
    ['d1', 30 * 60],
    ['d2', 3 * 60],
  ] as const) {
    await store.putDecision({
      id,
      cluster: 'demo',
      at: minutesAgo(m),
      kind: 'Provision',
      nodeClaims: ['general-a'],
      summary: `decision ${id}`,
      detail: {},
    });
  }
  const events = outputs.demo?.EventsQueueUrl as string;
  for (const n of [1, 2]) {
    await demo.sqs.send(new SendMessageCommand({ QueueUrl: events, MessageBody: `m${n}`, MessageGroupId: 'demo' }));
  }
  await demo.sqs.send(
    new SendMessageCommand({ QueueUrl: queueUrl('demo', 'QueuesTerminationDlq'), MessageBody: 'poison' }),
  );
  await alarm(
    demo,
    'karpless-demo-OperationsterminationDlqDepthA1B2C3-XYZ',
    'Karpless demo: messages in the termination DLQ',
    'ALARM',
  );
  await alarm(
    demo,
    'karpless-demo-OperationseventsOldestMessageD4E5-UVW',
    'Karpless demo: the events queue is not being drained',
    'OK',
  );
  // A cluster whose name extends "demo": its alarms share the prefix but are not demo's.
  await alarm(
    demo,
    'karpless-demo-x-OperationsScheduledFailures-RST',
    'Karpless demo-x: a scheduled sweep failed',
    'ALARM',
  );
  await cloudwatch(demo).send(
    new PutMetricDataCommand({
      Namespace: 'Karpless',
      MetricData: [
        {
          MetricName: 'PendingPods',
          Value: 3,
          Timestamp: new Date(minutesAgo(2)),
          Dimensions: [
            { Name: 'cluster', Value: 'demo' },
            { Name: 'service', Value: 'provisioner' },
          ],
        },
      ],
    }),
  );
}, 180_000);
afterAll(() => {
  vi.unstubAllEnvs();
});

async function status(...args: string[]) {
  const io = bufferIO();
  const code = await main(
    ['status', '--clusters', EXAMPLE, '--endpoint-url', (aws.demo as Emulator).endpoint, ...args],
    io,
  );
  return { code, out: io.stdout.join(''), err: io.stderr.join('') };
}

describe('karpless status on the emulator', () => {
  it('reads both clusters of clusters.example.yaml from their stacks: nodes, $/hour, decisions, queues, alarms', async () => {
    const { code, out, err } = await status('-o', 'json');
    expect(err).toBe('');
    expect(code).toBe(0);
    const [demo, prod] = JSON.parse(out) as ClusterStatus[];
    expect(demo).toMatchObject({
      cluster: 'demo',
      region: 'us-west-2',
      stack: 'karpless-demo',
      tableName: outputs.demo?.TableName,
      nodes: [
        { nodePool: 'general', capacityType: 'on-demand', count: 1, pricePerHour: 0.096 },
        { nodePool: 'general', capacityType: 'spot', count: 2, pricePerHour: 0.09 },
        { nodePool: 'gpu', capacityType: 'on-demand', count: 1, pricePerHour: 0 },
      ],
      launching: { Launched: 1 },
      pricePerHour: 0.186,
      pendingPods: 3,
      lastDecision: { kind: 'Provision', summary: 'decision d2', at: minutesAgo(3 * 60) },
      messagesInFlight: 2,
      deadLetters: 1,
      alarms: [{ name: 'karpless-demo-OperationsterminationDlqDepthA1B2C3-XYZ', reason: 'ALARM for the test' }],
    });
    // The seven queues of the stack, found through its resources: three work queues, three DLQs, scheduled failures.
    expect(demo?.queues.map((q) => q.deadLetter)).toHaveLength(7);
    expect(demo?.queues.filter((q) => q.deadLetter)).toHaveLength(4);
    expect(demo?.queues.find((q) => q.url === outputs.demo?.EventsQueueUrl)).toMatchObject({
      visible: 2,
      deadLetter: false,
    });
    expect(prod).toMatchObject({
      cluster: 'prod-private',
      region: 'eu-west-1',
      tableName: outputs['prod-private']?.TableName,
      nodes: [],
      pricePerHour: 0,
      messagesInFlight: 0,
      deadLetters: 0,
      alarms: [],
    });
    expect(prod?.pendingPods).toBeUndefined();
    expect(prod?.lastDecision).toBeUndefined();
  });

  it('prints one row per cluster', async () => {
    const { code, out } = await status();
    expect(code).toBe(0);
    const [header, demo, prod] = out.trimEnd().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'CLUSTER',
      'REGION',
      'NODES (NODEPOOL/CAPACITY)',
      'PENDING',
      '$/HOUR',
      'LAST DECISION',
      'IN FLIGHT',
      'DLQ',
      'ALARMS',
    ]);
    expect(demo?.split(/\s{2,}/)).toEqual([
      'demo',
      'us-west-2',
      'general/on-demand 1, general/spot 2, gpu/on-demand 1',
      '3',
      '$0.1860',
      '3h ago',
      '2',
      '1',
      '1',
    ]);
    expect(prod?.split(/\s{2,}/)).toEqual(['prod-private', 'eu-west-1', '-', '-', '$0.0000', '-', '0', '0', '0']);
  });

  it('shows one cluster in detail', async () => {
    const { code, out } = await status('demo');
    expect(code).toBe(0);
    expect(out).toContain(`cluster demo (us-west-2), stack karpless-demo, table ${outputs.demo?.TableName}`);
    expect(out).toMatch(/general +spot +2 +\$0\.0900/);
    expect(out).toContain('total: 4 node(s), $0.1860/h; not yet initialized: 1 Launched');
    expect(out).toContain('pending pods: 3');
    expect(out).toContain('last decision: 3h ago, Provision: decision d2');
    const eventsName = outputs.demo?.EventsQueueUrl?.split('/').pop() as string;
    expect(out).toMatch(new RegExp(`${eventsName.replace(/\./g, '\\.')} +work +2 +0 +0`));
    expect(out).toContain('karpless-demo-OperationsterminationDlqDepthA1B2C3-XYZ');
    expect(out).not.toContain('demo-x');
  });

  it('names a stack that is not deployed in one line, and still shows the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpless-status-'));
    const file = join(dir, 'clusters.yaml');
    writeFileSync(
      file,
      `clusters:\n  - {name: demo, account: "111122223333", region: us-west-2, kubernetesVersion: "1.31", alarms: {email: a@b.c}}\n` +
        `  - {name: absent, account: "111122223333", region: us-west-2, kubernetesVersion: "1.31", alarms: {email: a@b.c}}\n`,
    );
    const { code, out, err } = await status('--clusters', file);
    expect(code).toBe(1);
    expect(err.trimEnd().split('\n')).toEqual([
      'absent: stack karpless-absent not found in us-west-2: deploy it (npx cdk deploy karpless-absent), or pass --clusters with the file it was deployed from',
    ]);
    expect(out).toMatch(/^demo +us-west-2 +general/m);
    expect(out).toMatch(/^absent +us-west-2 +error \(see above\)/m);
  });
});
