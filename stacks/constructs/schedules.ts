// EventBridge Scheduler: the sweep goes into the cluster FIFO queue (group = cluster), so consolidation is
// serialized with provisioning; GC invokes its function directly with a GcTick, and every 12 hours with a
// RefreshPrices tick (docs/deploy.md, Prices). The schedules share one role that may send to the events queue and
// invoke the GC function, nothing else (the L2 targets would grant wildcards).
import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { gcTickTemplate, sweepTemplate } from '../../shared/events';

/** Karpenter's pricing controller refreshes on-demand and spot prices together every 12 hours; so does Karpless. */
export const PRICE_REFRESH_SCHEDULE = 'rate(12 hours)';

export interface SchedulesProps {
  cluster: string;
  sweepSchedule: string;
  gcSchedule: string;
  eventsQueue: sqs.IQueue;
  queueKey?: kms.IKey;
  gcFunction: lambda.IFunction;
  /** Where a tick the Scheduler could not deliver goes, and a failed GC invocation (its on-failure destination). */
  failures: sqs.IQueue;
}

/** What differs between the schedules: where the tick goes, what it says, and how long it is worth retrying. */
type ScheduleTarget = Required<Pick<scheduler.CfnSchedule.TargetProperty, 'arn' | 'input' | 'retryPolicy'>> &
  Pick<scheduler.CfnSchedule.TargetProperty, 'sqsParameters'>;

export class Schedules extends Construct {
  readonly role: iam.Role;
  readonly sweep: scheduler.CfnSchedule;
  readonly gc: scheduler.CfnSchedule;
  readonly prices: scheduler.CfnSchedule;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.role = new iam.Role(this, 'Role', {
      description: `EventBridge Scheduler for Karpless cluster ${props.cluster}`,
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    });
    const statements = [
      new iam.PolicyStatement({
        sid: 'SendSweep',
        actions: ['sqs:SendMessage'],
        resources: [props.eventsQueue.queueArn],
      }),
      new iam.PolicyStatement({
        sid: 'InvokeGc',
        actions: ['lambda:InvokeFunction'],
        resources: [props.gcFunction.functionArn],
      }),
    ];
    statements.push(
      new iam.PolicyStatement({
        sid: 'DeadLetterUndeliveredTicks',
        actions: ['sqs:SendMessage'],
        resources: [props.failures.queueArn],
      }),
    );
    if (props.queueKey) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'EncryptSweep',
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [props.queueKey.keyArn],
        }),
      );
    }
    const policy = new iam.Policy(this, 'Policy', { statements });
    this.role.attachInlinePolicy(policy);

    const schedule = (id: string, what: string, scheduleExpression: string, target: ScheduleTarget) => {
      const created = new scheduler.CfnSchedule(this, id, {
        description: `Karpless ${what} of ${props.cluster}`,
        scheduleExpression,
        flexibleTimeWindow: { mode: 'OFF' },
        target: {
          arn: target.arn,
          roleArn: this.role.roleArn,
          input: target.input,
          sqsParameters: target.sqsParameters,
          retryPolicy: target.retryPolicy,
          deadLetterConfig: { arn: props.failures.queueArn },
        },
      });
      created.node.addDependency(policy);
      return created;
    };
    this.sweep = schedule('Sweep', 'disruption sweep', props.sweepSchedule, {
      arn: props.eventsQueue.queueArn,
      input: sweepTemplate(props.cluster),
      sqsParameters: { messageGroupId: props.cluster },
      // A late sweep is worthless: the next one is a period away.
      retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 60 },
    });
    this.gc = schedule('Gc', 'garbage collection', props.gcSchedule, {
      arn: props.gcFunction.functionArn,
      input: gcTickTemplate(props.cluster),
      retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 },
    });
    this.prices = schedule('Prices', 'price refresh', PRICE_REFRESH_SCHEDULE, {
      arn: props.gcFunction.functionArn,
      input: gcTickTemplate(props.cluster, 'RefreshPrices'),
      // A refresh a few minutes late is as good as on time; one that never ran leaves prices 12 hours older.
      retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 3600 },
    });
    // The Scheduler invokes GC asynchronously: a run that fails lands in the same queue, where its depth alarms. The
    // GC role's right to send there is granted by the stack (SendFailedRuns), with no wildcard KMS action.
    new lambda.CfnEventInvokeConfig(this, 'GcFailures', {
      functionName: props.gcFunction.functionName,
      qualifier: '$LATEST',
      maximumRetryAttempts: 0,
      destinationConfig: { onFailure: { destination: props.failures.queueArn } },
    });
  }
}
