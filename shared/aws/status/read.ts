// What `karpless status` shows of one deployed cluster, read with the caller's AWS credentials from the cluster's
// stack and what it created (docs/deploy.md, "Seeing the fleet"):
// - CloudFormation: DescribeStacks gives the TableName output; ListStackResources the queues (their URLs);
// - DynamoDB: the live NodeClaims (nodes by NodePool and capacity type, $/hour) and the newest decision record;
// - SQS: messages waiting or in flight on the three work queues, and what sits in the dead-letter queues;
// - CloudWatch: the stack's alarms in ALARM, and the provisioner's latest PendingPods metric.
// Alarm names are CloudFormation's `<stack>-<logical id>-<suffix>`; the description every Karpless alarm carries
// (`Karpless <cluster>: ...`, stacks/constructs/operations.ts) tells a cluster from one whose name extends it.
import {
  type CloudFormationClient,
  DescribeStacksCommand,
  paginateListStackResources,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import {
  type CloudWatchClient,
  GetMetricStatisticsCommand,
  type MetricAlarm,
  paginateDescribeAlarms,
} from '@aws-sdk/client-cloudwatch';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { LIVE_STATES, type NodeClaim } from '../../api/nodeclaim';
import { CLUSTER_DIMENSION, METRIC_NAMESPACE, MetricNames } from '../../metrics';
import type { DynamoNodeClaimStore } from '../dynamo/store';

export interface StatusReaders {
  cloudformation: CloudFormationClient;
  cloudwatch: CloudWatchClient;
  sqs: SQSClient;
  /** The cluster's NodeClaim store on the table its stack names. */
  store: (tableName: string, cluster: string) => DynamoNodeClaimStore;
  now: () => number;
}

export interface NodeGroup {
  nodePool: string;
  capacityType: string;
  count: number;
  pricePerHour: number;
}

export interface QueueStatus {
  /** The queue's logical id in the stack, e.g. QueuesEventsDlq1234ABCD. */
  logicalId: string;
  url: string;
  deadLetter: boolean;
  visible: number;
  inFlight: number;
  delayed: number;
}

export interface AlarmStatus {
  name: string;
  reason: string;
  since?: string;
}

export interface ClusterStatus {
  cluster: string;
  region: string;
  stack: string;
  tableName: string;
  nodes: NodeGroup[];
  /** Live claims whose node is not initialized yet, by state. */
  launching: Record<string, number>;
  pricePerHour: number;
  /** The provisioner's latest PendingPods metric in the last 15 minutes; undefined when it reported none. */
  pendingPods?: number;
  lastDecision?: { at: string; kind: string; summary: string };
  queues: QueueStatus[];
  /** Waiting, in flight and delayed on the work queues. */
  messagesInFlight: number;
  /** Waiting in the dead-letter queues (and the scheduled-failures queue). */
  deadLetters: number;
  alarms: AlarmStatus[];
}

/** Logical ids of the queues that hold failures rather than work (stacks/constructs/queues.ts). */
const isDeadLetterQueue = (logicalId: string) => /Dlq|ScheduledFailures/.test(logicalId);

export async function readClusterStatus(
  r: StatusReaders,
  cluster: { name: string; region: string; stack: string },
): Promise<ClusterStatus> {
  const { stack } = cluster;
  const described = await r.cloudformation.send(new DescribeStacksCommand({ StackName: stack }));
  const outputs = Object.fromEntries(
    (described.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
  );
  const tableName = outputs.TableName;
  if (!tableName) throw new Error(`stack ${stack} has no TableName output: is it a Karpless cluster stack?`);
  const resources: StackResourceSummary[] = [];
  for await (const page of paginateListStackResources({ client: r.cloudformation }, { StackName: stack })) {
    resources.push(...(page.StackResourceSummaries ?? []));
  }
  const queueUrls = resources
    .filter((m) => m.ResourceType === 'AWS::SQS::Queue' && m.PhysicalResourceId)
    .map((m) => ({ logicalId: m.LogicalResourceId ?? '', url: m.PhysicalResourceId ?? '' }))
    .sort((a, b) => a.logicalId.localeCompare(b.logicalId));
  const store = r.store(tableName, cluster.name);
  const [claims, lastDecision, queues, alarms, pendingPods] = await Promise.all([
    store.list({ states: LIVE_STATES }),
    store.latestDecision(),
    Promise.all(queueUrls.map((q) => queueStatus(r.sqs, q))),
    alarmsInAlarm(r.cloudwatch, stack, cluster.name),
    latestPendingPods(r.cloudwatch, cluster.name, r.now()),
  ]);
  const work = queues.filter((q) => !q.deadLetter);
  return {
    cluster: cluster.name,
    region: cluster.region,
    stack,
    tableName,
    nodes: nodeGroups(claims),
    launching: countBy(
      claims.filter((c) => !c.stateTimes.Initialized),
      (c) => c.state,
    ),
    pricePerHour: round(claims.reduce((sum, c) => sum + (c.pricePerHour ?? 0), 0)),
    ...(pendingPods === undefined ? {} : { pendingPods }),
    ...(lastDecision
      ? { lastDecision: { at: lastDecision.at, kind: lastDecision.kind, summary: lastDecision.summary } }
      : {}),
    queues,
    messagesInFlight: work.reduce((n, q) => n + q.visible + q.inFlight + q.delayed, 0),
    deadLetters: queues.filter((q) => q.deadLetter).reduce((n, q) => n + q.visible + q.inFlight + q.delayed, 0),
    alarms,
  };
}

const round = (usd: number) => Math.round(usd * 10_000) / 10_000;

function countBy<T>(items: readonly T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of items) out[key(t)] = (out[key(t)] ?? 0) + 1;
  return out;
}

export function nodeGroups(claims: readonly NodeClaim[]): NodeGroup[] {
  const groups = new Map<string, NodeGroup>();
  for (const c of claims) {
    const capacityType = c.capacityType ?? 'unknown';
    const k = `${c.nodePool}\u0000${capacityType}`;
    const g = groups.get(k) ?? { nodePool: c.nodePool, capacityType, count: 0, pricePerHour: 0 };
    g.count++;
    g.pricePerHour = round(g.pricePerHour + (c.pricePerHour ?? 0));
    groups.set(k, g);
  }
  return [...groups.values()].sort(
    (a, b) => a.nodePool.localeCompare(b.nodePool) || a.capacityType.localeCompare(b.capacityType),
  );
}

async function queueStatus(sqs: SQSClient, q: { logicalId: string; url: string }): Promise<QueueStatus> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: q.url,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const n = (k: string) => Number(out.Attributes?.[k as keyof typeof out.Attributes] ?? 0);
  return {
    ...q,
    deadLetter: isDeadLetterQueue(q.logicalId),
    visible: n('ApproximateNumberOfMessages'),
    inFlight: n('ApproximateNumberOfMessagesNotVisible'),
    delayed: n('ApproximateNumberOfMessagesDelayed'),
  };
}

async function alarmsInAlarm(cloudwatch: CloudWatchClient, stack: string, cluster: string): Promise<AlarmStatus[]> {
  const alarms: MetricAlarm[] = [];
  const pages = paginateDescribeAlarms({ client: cloudwatch }, { AlarmNamePrefix: `${stack}-`, StateValue: 'ALARM' });
  for await (const page of pages) alarms.push(...(page.MetricAlarms ?? []));
  return (
    alarms
      // moto 5.2.1 applies AlarmNamePrefix but not StateValue; the state is checked here as well.
      .filter((m) => m.StateValue === 'ALARM')
      .filter((m) => (m.AlarmDescription ?? '').startsWith(`Karpless ${cluster}:`))
      .map((m) => ({
        name: m.AlarmName ?? '',
        reason: m.StateReason ?? '',
        ...(m.StateUpdatedTimestamp ? { since: m.StateUpdatedTimestamp.toISOString() } : {}),
      }))
      .sort((a, b) => a.name.localeCompare(b.name))
  );
}

async function latestPendingPods(
  cloudwatch: CloudWatchClient,
  cluster: string,
  now: number,
): Promise<number | undefined> {
  const out = await cloudwatch.send(
    new GetMetricStatisticsCommand({
      Namespace: METRIC_NAMESPACE,
      MetricName: MetricNames.PendingPods,
      Dimensions: [
        { Name: CLUSTER_DIMENSION, Value: cluster },
        { Name: 'service', Value: 'provisioner' },
      ],
      StartTime: new Date(now - 15 * 60_000),
      EndTime: new Date(now),
      Period: 60,
      Statistics: ['Maximum'],
    }),
  );
  const points = (out.Datapoints ?? [])
    .filter((p) => p.Timestamp && Number.isFinite(p.Maximum))
    .sort((a, b) => (a.Timestamp?.getTime() ?? 0) - (b.Timestamp?.getTime() ?? 0));
  return points.at(-1)?.Maximum;
}
