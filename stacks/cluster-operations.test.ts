// The synthesized ClusterStack's operations: alarms, the dashboard, log retention, the reader policy, outputs.
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MetricName, MetricNames } from '../shared/metrics';
import type { ClusterStack } from './cluster-stack';
import { FUNCTIONS } from './functions';
import { flat } from './testing/iam';
import { synthCluster } from './testing/synth';

type Template = ReturnType<typeof synthCluster>['template'];
type Resources = Record<string, { Properties: Record<string, unknown>; DependsOn?: string[] }>;

const DEPLOYED = ['provisioner', 'interruption', 'termination', 'gc'] as const;

let stack: ClusterStack;
let template: Template;
beforeAll(() => {
  ({ stack, template } = synthCluster());
});

function logicalId(construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as never);
}

describe('operations', () => {
  it('alarms on DLQ depth, oldest message age, errors, throttles and p99 duration, to the topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Resources).map(
      (a) => a.Properties,
    );
    // Three DLQs and the scheduled-failures queue, three queue ages, three per function, the NodePool alarm and the
    // two persistent-deferral alarms (provisioning and the disruption sweep).
    expect(alarms).toHaveLength(4 + 3 + DEPLOYED.length * 3 + 3);
    const count = (metric: string) => alarms.filter((a) => a.MetricName === metric).length;
    expect(count('ApproximateNumberOfMessagesVisible')).toBe(4);
    expect(count('ApproximateAgeOfOldestMessage')).toBe(3);
    expect(count('Errors')).toBe(DEPLOYED.length);
    expect(count('Throttles')).toBe(DEPLOYED.length);
    const durations = alarms.filter((a) => a.MetricName === 'Duration');
    expect(durations.map((a) => a.ExtendedStatistic)).toEqual(DEPLOYED.map(() => 'p99'));
    expect(durations.map((a) => a.Threshold).sort()).toEqual(
      DEPLOYED.map((n) => FUNCTIONS[n].timeoutSeconds * 800).sort(),
    );
    // A NodePool that cannot launch for five Sweep ticks, as the provisioner's status pass counts them.
    expect(alarms.filter((a) => a.MetricName === 'NodePoolsNotReady')).toEqual([
      expect.objectContaining({
        Namespace: 'Karpless',
        Dimensions: expect.arrayContaining([
          { Name: 'cluster', Value: 'demo' },
          { Name: 'service', Value: 'provisioner' },
        ]),
        Statistic: 'Maximum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 5,
      }),
    ]);
    // Provisioning passes that defer pods in every 5-minute period for 15 minutes: the deadline is not enough.
    expect(alarms.filter((a) => a.MetricName === 'PodsDeferred')).toEqual([
      expect.objectContaining({
        Namespace: 'Karpless',
        Statistic: 'Minimum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 3,
      }),
    ]);
    // Disruption sweeps cut short by their deadline in every period for 15 minutes: the cluster outgrew the sweep.
    expect(alarms.filter((a) => a.MetricName === 'SweepCandidatesDeferred')).toEqual([
      expect.objectContaining({
        Namespace: 'Karpless',
        Statistic: 'Minimum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 3,
      }),
    ]);
    const dlq = alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible');
    for (const a of dlq) expect([a.Threshold, a.ComparisonOperator]).toEqual([0, 'GreaterThanThreshold']);
    const topic = logicalId(stack.operations.topic as never);
    for (const a of alarms) expect(a.AlarmActions).toEqual([{ Ref: topic }]);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    // The topic is encrypted; CloudWatch may only encrypt to it.
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
          }),
        ]),
      },
    });
  });

  it('sends alarms to an existing topic when given its ARN', () => {
    const arn = 'arn:aws:sns:us-west-2:111122223333:ops';
    const { template: t } = synthCluster({ alarms: { snsTopicArn: arn } });
    t.resourceCountIs('AWS::SNS::Topic', 0);
    const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm') as Resources);
    for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([arn]);
  });

  it('has a dashboard of the EMF metrics by cluster', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard') as Resources);
    expect(dashboard?.Properties.DashboardName).toBe('karpless-demo');
    const body = JSON.parse(flat(dashboard?.Properties.DashboardBody)) as {
      widgets: { properties: { title: string; metrics: unknown[][] } }[];
    };
    const expressions = body.widgets.flatMap((w) =>
      w.properties.metrics
        .flat()
        .flatMap((m) => (m && typeof m === 'object' && 'expression' in m ? [String(m.expression)] : [])),
    );
    for (const metric of [
      'PendingPods',
      'Launches',
      'LaunchLatency',
      'InsufficientCapacity',
      'Interruptions',
      'Nodes',
      'CostPerHour',
    ]) {
      expect(expressions.some((e) => e.includes(`MetricName="${metric}" cluster="demo"`))).toBe(true);
    }
    expect(expressions.find((e) => e.includes('"Nodes"'))).toContain('{Karpless,cluster,nodePool,service}');
    // Every dimension the metric is emitted with, or SEARCH finds nothing.
    expect(expressions.find((e) => e.includes('"NodeClaimsDisrupted"'))).toContain(
      '{Karpless,cluster,nodePool,reason,service}',
    );
    expect(expressions.find((e) => e.includes('"NodeClaimsUnhealthyDisrupted"'))).toContain(
      '{Karpless,cluster,condition,nodePool,service}',
    );
    expect(body.widgets.map((w) => w.properties.title)).toEqual(
      expect.arrayContaining([
        'Pending pods',
        'Launches',
        'Launch latency (ms)',
        'Insufficient capacity',
        'Interruptions',
        'Nodes by NodePool',
        'Cost per hour (USD)',
      ]),
    );
  });

  it('retains logs as configured', () => {
    const { template: t } = synthCluster({ logRetentionDays: 90 });
    const groups = Object.values(t.findResources('AWS::Logs::LogGroup') as Resources);
    expect(groups.map((g) => g.Properties.RetentionInDays)).toEqual(DEPLOYED.map(() => 90));
  });

  it("offers a reader policy that may only Query the cluster's partition, for karpless nodeclaims and explain", () => {
    const policies = Object.values(template.findResources('AWS::IAM::ManagedPolicy') as Resources);
    expect(policies).toHaveLength(1);
    const doc = policies[0]?.Properties.PolicyDocument as { Statement: unknown[] };
    const tables = Object.keys(template.findResources('AWS::DynamoDB::GlobalTable'));
    expect(doc.Statement).toEqual([
      {
        Action: 'dynamodb:Query',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [tables[0], 'Arn'] },
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['CLUSTER#demo'] } },
      },
    ]);
    expect(Object.keys(template.toJSON().Outputs)).toEqual(expect.arrayContaining(['TableName', 'ReaderPolicyArn']));
  });

  it('outputs what the forwarder install and the EC2NodeClass need', () => {
    const outputs = Object.keys(template.toJSON().Outputs);
    for (const o of ['EventsQueueUrl', 'ForwarderRoleArn', 'NodeRoleName', 'InstanceProfileName', 'ControllerGroup']) {
      expect(outputs).toContain(o);
    }
  });
});

/** Emitted but deliberately off the dashboard and alarms: each is read in Logs Insights or a metric query when
 * investigating, not watched. A name added to shared/metrics.ts must go on the dashboard or here. */
const OFF_DASHBOARD: readonly MetricName[] = [
  // Pass internals: durations and counts behind the pending-pods and launch widgets.
  'UnschedulablePods',
  'SolveDuration',
  'ProvisionDuration',
  'CreateFleetDuration',
  'LaunchRetries',
  'LaunchFailures',
  // Node lifecycle detail; failures also surface as pending pods and launches.
  'NodeClaimsRegistered',
  'NodeClaimsInitialized',
  'InitializationLatency',
  'NodeClaimsTimedOut',
  'PodsBound',
  // Disruption and termination detail; `karpless explain` reads the decisions themselves.
  'DisruptionDecided',
  'DisruptionStarted',
  'DisruptionDropped',
  'PodsEvicted',
  'DrainDeadlineReached',
  // Each redrive is logged with its claim and how long it stood still; the claim's own record keeps the count.
  'TerminationsRedriven',
  // Each refusal is logged with the claim it named; only function roles may send on the termination queue.
  'TerminationsRefused',
  'NodeClaimsTerminated',
  'OrphanInstancesTerminated',
  // GC logs each refused termination with its instance id; a refusal repeats on every tick until someone acts.
  'OrphanTerminationsFailed',
  // GC logs each unproven orphan with its instance id; it repeats on every tick until someone removes the tags.
  'OrphansUnproven',
  'ClaimsWithInstanceGone',
  // Price refreshes fall back to the last stored prices or the embedded catalog with a log line.
  'PriceRefreshSucceeded',
  'PriceRefreshFailed',
  // Coalesced hints are work not done; the passes that answered them show as ProvisionDuration.
  'HintsCoalesced',
  // Poison messages land in a DLQ, which the DLQ-depth alarms watch; redeliveries show as queue age.
  'PoisonMessages',
  'BatchItemFailures',
];

describe('metric names', () => {
  it('puts every emitted metric on the dashboard or alarms, or on the deliberate off-dashboard list', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard') as Resources);
    const body = flat(dashboard?.Properties.DashboardBody);
    const watched = new Set<string>([...body.matchAll(/MetricName=\\?"(\w+)\\?"/g)].map((m) => m[1] ?? ''));
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm') as Resources)) {
      if (alarm.Properties.Namespace === 'Karpless') watched.add(String(alarm.Properties.MetricName));
    }
    const names = Object.values(MetricNames);
    expect(names.filter((n) => !watched.has(n) && !OFF_DASHBOARD.includes(n))).toEqual([]);
    // Nothing is both watched and listed as unwatched, and the dashboard reads no name the functions never emit.
    expect(OFF_DASHBOARD.filter((n) => watched.has(n))).toEqual([]);
    expect([...watched].filter((n) => !(names as string[]).includes(n))).toEqual([]);
  });
});
