// Alarms to the cluster's SNS topic and a dashboard of the EMF metrics the functions emit (namespace Karpless,
// dimension cluster). Powertools adds a `service` dimension per function, so widgets SEARCH across it.
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CLUSTER_DIMENSION, METRIC_NAMESPACE, MetricNames, NODEPOOL_DIMENSION } from '../../shared/metrics';
import type { Alarms } from '../config';

export interface OperationsProps {
  cluster: string;
  alarms: Alarms;
  queues: { name: string; queue: sqs.IQueue; dlq: sqs.IQueue }[];
  /** Ticks the Scheduler could not deliver and failed GC runs (stacks/constructs/schedules.ts). */
  scheduledFailures: sqs.IQueue;
  functions: { name: string; fn: lambda.IFunction; timeoutSeconds: number }[];
}

/** How old the oldest message of each queue may get before someone should look. */
export const OLDEST_MESSAGE_LIMIT_SECONDS: Record<string, number> = {
  events: 300,
  interruption: 120,
  termination: 1800,
};
/** p99 duration above this share of the timeout alarms: the function is about to time out. */
export const DURATION_ALARM_SHARE = 0.8;

export class Operations extends Construct {
  readonly topic: sns.ITopic;
  readonly alarms: cw.Alarm[] = [];
  readonly dashboard: cw.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    this.topic =
      'snsTopicArn' in props.alarms
        ? sns.Topic.fromTopicArn(this, 'Topic', props.alarms.snsTopicArn)
        : this.emailTopic(props.alarms.email);
    const action = new cwActions.SnsAction(this.topic);
    const alarm = (alarmId: string, a: cw.AlarmProps) => {
      const created = new cw.Alarm(this, alarmId, a);
      created.addAlarmAction(action);
      this.alarms.push(created);
    };

    alarm('ScheduledFailures', {
      alarmDescription: `Karpless ${props.cluster}: a scheduled sweep or GC run failed or was not delivered`,
      metric: props.scheduledFailures.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cw.TreatMissingData.NOT_BREACHING,
    });
    for (const { name, queue, dlq } of props.queues) {
      alarm(`${name}DlqDepth`, {
        alarmDescription: `Karpless ${props.cluster}: messages in the ${name} DLQ (poison or repeatedly failing)`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      });
      alarm(`${name}OldestMessage`, {
        alarmDescription: `Karpless ${props.cluster}: the ${name} queue is not being drained`,
        metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: OLDEST_MESSAGE_LIMIT_SECONDS[name] ?? 300,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      });
    }
    for (const { name, fn, timeoutSeconds } of props.functions) {
      const base = { evaluationPeriods: 1, treatMissingData: cw.TreatMissingData.NOT_BREACHING };
      const fiveMinuteSum = { period: Duration.minutes(5), statistic: 'Sum' };
      // Any failed or throttled invocation alarms.
      const failures = [
        { id: 'Errors', what: 'invocations failed', metric: fn.metricErrors(fiveMinuteSum) },
        { id: 'Throttles', what: 'was throttled', metric: fn.metricThrottles(fiveMinuteSum) },
      ];
      for (const { id, what, metric } of failures) {
        alarm(`${name}${id}`, {
          ...base,
          alarmDescription: `Karpless ${props.cluster}: ${name} ${what}`,
          metric,
          threshold: 1,
          comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        });
      }
      alarm(`${name}DurationNearTimeout`, {
        ...base,
        alarmDescription: `Karpless ${props.cluster}: ${name} p99 duration is above ${DURATION_ALARM_SHARE * 100}% of its timeout`,
        metric: fn.metricDuration({ period: Duration.minutes(5), statistic: 'p99' }),
        threshold: Math.round(timeoutSeconds * 1000 * DURATION_ALARM_SHARE),
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
    alarm('NodePoolsNotReady', {
      alarmDescription: `Karpless ${props.cluster}: a NodePool cannot launch (kubectl describe nodepool and ec2nodeclass say why)`,
      metric: new cw.Metric({
        namespace: METRIC_NAMESPACE,
        metricName: MetricNames.NodePoolsNotReady,
        dimensionsMap: { [CLUSTER_DIMENSION]: props.cluster, service: 'provisioner' },
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
      // Five Sweep ticks: a class that fails to resolve once (throttling) does not page anyone.
      evaluationPeriods: 5,
      treatMissingData: cw.TreatMissingData.NOT_BREACHING,
    });
    // Work that keeps running out of time: a big batch or sweep is cut short for a pass or two and then drains (the
    // continuation or the cursor carries the rest over); cut short in every pass for 15 minutes, the cluster has
    // outgrown the invocation.
    const deferralsPersist = (id: string, what: string, doc: string, metricName: string) =>
      alarm(id, {
        alarmDescription: `Karpless ${props.cluster}: ${what} keep running out of time and deferring ${doc}`,
        metric: new cw.Metric({
          namespace: METRIC_NAMESPACE,
          metricName,
          dimensionsMap: { [CLUSTER_DIMENSION]: props.cluster, service: 'provisioner' },
          period: Duration.minutes(5),
          statistic: 'Minimum',
        }),
        threshold: 0,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      });
    deferralsPersist(
      'PodsDeferredPersist',
      'provisioning passes',
      'pods (docs/performance.md, A deadline that holds)',
      MetricNames.PodsDeferred,
    );
    deferralsPersist(
      'SweepDeferredPersist',
      'disruption sweeps',
      'candidates (docs/disruption.md, A deadline for the sweep)',
      MetricNames.SweepCandidatesDeferred,
    );
    this.dashboard = this.buildDashboard(props);
  }

  private emailTopic(email: string): sns.Topic {
    const key = new kms.Key(this, 'TopicKey', {
      description: 'Encrypts Karpless alarm notifications',
      enableKeyRotation: true,
    });
    // CloudWatch alarms publish to the encrypted topic; they need exactly these two actions on the key, and only this
    // account's alarms may use them (a service principal without a source condition is a confused deputy).
    const stack = Stack.of(this);
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
          StringEquals: { 'aws:SourceAccount': stack.account },
        },
      }),
    );
    const topic = new sns.Topic(this, 'Topic', { displayName: 'Karpless alarms', masterKey: key, enforceSSL: true });
    topic.addSubscription(new subscriptions.EmailSubscription(email));
    return topic;
  }

  private buildDashboard(props: OperationsProps): cw.Dashboard {
    const { cluster } = props;
    const search = (metric: string, stat: string, dims = `${CLUSTER_DIMENSION},service`) =>
      `SEARCH('{${METRIC_NAMESPACE},${dims}} MetricName="${metric}" ${CLUSTER_DIMENSION}="${cluster}"', '${stat}', 60)`;
    const summed = (metric: string, label: string, stat = 'Sum') =>
      new cw.MathExpression({ expression: `SUM(${search(metric, stat)})`, label, period: Duration.minutes(1) });
    const graph = (title: string, left: cw.IMetric[], width = 8) =>
      new cw.GraphWidget({ title, left, width, height: 6 });

    const dashboard = new cw.Dashboard(this, 'Dashboard', {
      dashboardName: `karpless-${cluster}`,
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(
      graph('Pending pods', [summed(MetricNames.PendingPods, 'pending pods', 'Maximum')]),
      graph('Launches', [summed(MetricNames.Launches, 'launches')]),
      graph('Launch latency (ms)', [
        new cw.MathExpression({
          expression: search(MetricNames.LaunchLatency, 'p50'),
          label: 'p50',
          period: Duration.minutes(1),
        }),
        new cw.MathExpression({
          expression: search(MetricNames.LaunchLatency, 'p99'),
          label: 'p99',
          period: Duration.minutes(1),
        }),
      ]),
    );
    dashboard.addWidgets(
      graph('Insufficient capacity', [summed(MetricNames.InsufficientCapacity, 'ICE')]),
      graph('Interruptions', [summed(MetricNames.Interruptions, 'interruptions')]),
      graph('Nodes by NodePool', [
        new cw.MathExpression({
          expression: search(MetricNames.Nodes, 'Maximum', `${CLUSTER_DIMENSION},${NODEPOOL_DIMENSION},service`),
          label: '',
          period: Duration.minutes(1),
        }),
      ]),
    );
    dashboard.addWidgets(
      // Karpenter's karpenter_nodeclaims_disrupted_total by reason, and node repair's unhealthy conditions.
      graph('NodeClaims disrupted', [
        new cw.MathExpression({
          expression: search(
            MetricNames.NodeClaimsDisrupted,
            'Sum',
            `${CLUSTER_DIMENSION},${NODEPOOL_DIMENSION},reason,service`,
          ),
          label: '',
          period: Duration.minutes(1),
        }),
      ]),
      graph('Node repairs by condition', [
        new cw.MathExpression({
          expression: search(
            MetricNames.NodeClaimsUnhealthyDisrupted,
            'Sum',
            `${CLUSTER_DIMENSION},condition,${NODEPOOL_DIMENSION},service`,
          ),
          label: '',
          period: Duration.minutes(1),
        }),
      ]),
    );
    dashboard.addWidgets(
      graph('Cost per hour (USD)', [summed(MetricNames.CostPerHour, 'USD/h', 'Maximum')]),
      graph('NodePools not ready', [summed(MetricNames.NodePoolsNotReady, 'not ready', 'Maximum')]),
      graph('Solve and sweep deadlines', [
        summed(MetricNames.PodsDeferred, 'pods deferred'),
        summed(MetricNames.SolveDeadlineReached, 'solves out of time'),
        summed(MetricNames.SweepCandidatesDeferred, 'sweep candidates deferred'),
        summed(MetricNames.SweepDeadlineReached, 'sweeps out of time'),
      ]),
      graph(
        'Queue depth',
        props.queues.flatMap(({ name, queue, dlq }) => [
          queue.metricApproximateNumberOfMessagesVisible({ label: name, period: Duration.minutes(1) }),
          dlq.metricApproximateNumberOfMessagesVisible({ label: `${name} DLQ`, period: Duration.minutes(1) }),
        ]),
      ),
      graph(
        'Function errors',
        props.functions.map(({ name, fn }) => fn.metricErrors({ label: name, period: Duration.minutes(1) })),
      ),
    );
    return dashboard;
  }
}
