// One stack per cluster, `karpless-<cluster>`: queues, table, functions, EventBridge rules and schedules, node and
// forwarder identities, EKS access entries, alarms and a dashboard.

import { CfnOutput, Duration, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { CONTROLLER_GROUP } from '../shared/api/controller-group';
import { disruptionSettingsEnv } from '../shared/disruption';
import type { TrustedSenders } from '../shared/events';
import type { ClusterConfig } from './config';
import { stackName } from './constants';
import { FunctionAccessEntries } from './constructs/cluster-access';
import { ControlFunctions } from './constructs/control-functions';
import { ForwarderIdentity } from './constructs/forwarder-identity';
import { InterruptionRules } from './constructs/interruption-rules';
import { NodeIdentity } from './constructs/node-identity';
import { Operations } from './constructs/operations';
import { onlySenders } from './constructs/queue-senders';
import { ControlQueues } from './constructs/queues';
import { Schedules } from './constructs/schedules';
import { StateTable } from './constructs/state-table';
import {
  checkTopology,
  FUNCTION_NAMES,
  FUNCTIONS,
  type FunctionName,
  type FunctionSpec,
  type QueueName,
} from './functions';
import { sendTo } from './permissions';

export interface ClusterStackProps extends StackProps {
  config: ClusterConfig;
  /** Tests point every function at one stub entry; real synths use the entries of stacks/functions.ts. */
  entryOverride?: string;
  specs?: Readonly<Record<FunctionName, FunctionSpec>>;
}

export class ClusterStack extends Stack {
  readonly queues: ControlQueues;
  readonly table: StateTable;
  readonly functions: ControlFunctions;
  readonly nodeIdentity: NodeIdentity;
  readonly forwarder: ForwarderIdentity;
  readonly operations: Operations;

  constructor(scope: Construct, props: ClusterStackProps) {
    const { config } = props;
    super(scope, stackName(config.name), {
      ...props,
      env: { account: config.account, region: config.region },
      description: `Karpless serverless node autoscaling for EKS cluster ${config.name}`,
    });
    const specs = props.specs ?? FUNCTIONS;
    checkTopology(specs);
    Tags.of(this).add('karpless.dev/cluster', config.name);
    for (const [key, value] of Object.entries(config.tags)) Tags.of(this).add(key, value);

    const consumerTimeout = (queue: QueueName) => {
      const consumer = FUNCTION_NAMES.find((n) => {
        const t = specs[n].trigger;
        return 'queue' in t && t.queue === queue;
      });
      // Lambda requires the visibility timeout to cover the function timeout; twice that leaves room for retries.
      return Duration.seconds(2 * (consumer ? specs[consumer].timeoutSeconds : 60) + 30);
    };
    this.queues = new ControlQueues(this, 'Queues', {
      encryption: config.queueEncryption,
      visibility: {
        events: consumerTimeout('events'),
        interruption: consumerTimeout('interruption'),
        termination: consumerTimeout('termination'),
      },
    });
    this.table = new StateTable(this, 'State', config.name);
    this.nodeIdentity = new NodeIdentity(this, 'Node', config.name);

    this.functions = new ControlFunctions(this, 'Functions', {
      config,
      specs,
      entryOverride: props.entryOverride,
      queues: {
        events: this.queues.events,
        interruption: this.queues.interruption,
        termination: this.queues.termination,
      },
      deadLetterQueues: {
        events: this.queues.eventsDlq,
        interruption: this.queues.interruptionDlq,
        termination: this.queues.terminationDlq,
      },
      permissions: {
        cluster: config.name,
        table: this.table.table,
        instanceIdIndex: this.table.instanceIdIndex,
        eventsQueue: this.queues.events,
        terminationQueue: this.queues.termination,
        queueKey: this.queues.key,
        nodeRole: this.nodeIdentity.role,
      },
      environment: {
        // Read by functions/_wiring/env.ts `readEnv`.
        CLUSTER_NAME: config.name,
        KUBERNETES_VERSION: config.kubernetesVersion,
        TABLE_NAME: this.table.table.tableName,
        QUEUE_URL: this.queues.events.queueUrl,
        TERMINATION_QUEUE_URL: this.queues.termination.queueUrl,
        REBALANCE: config.interruption.rebalance,
        BIND_PODS: String(config.bindPods),
        ...(config.nodePools ? { OWNED_NODEPOOLS: config.nodePools.join(',') } : {}),
        // Only the settings that differ from the defaults, so an unchanged cluster's functions are unchanged.
        ...disruptionSettingsEnv(config.settings),
      },
    });

    new InterruptionRules(this, 'InterruptionRules', {
      cluster: config.name,
      queue: this.queues.interruption,
      ...(this.queues.key ? { key: this.queues.key } : {}),
    });
    const schedules = new Schedules(this, 'Schedules', {
      cluster: config.name,
      sweepSchedule: config.sweepSchedule,
      gcSchedule: config.gcSchedule,
      eventsQueue: this.queues.events,
      queueKey: this.queues.key,
      gcFunction: this.function('gc'),
      failures: this.queues.scheduledFailures,
    });
    // Who may send the cluster queue's commands; its consumer checks every message's SenderId against these roles'
    // unique ids (shared/events/trust.ts, docs/architecture.md "Trust boundaries").
    const trusted: TrustedSenders = {
      Sweep: [schedules.role.roleId],
      DisruptionDue: [(this.functions.roles.termination as iam.Role).roleId],
    };
    this.function('provisioner').addEnvironment('TRUSTED_SENDERS', Stack.of(this).toJsonString(trusted));
    new FunctionAccessEntries(this, 'FunctionAccess', config.name, this.functions.roles as Record<string, iam.IRole>);
    this.forwarder = new ForwarderIdentity(
      this,
      'Forwarder',
      config.name,
      config.forwarder,
      this.queues.events,
      this.queues.key,
    );
    const roles = this.functions.roles as Record<FunctionName, iam.Role>;
    roles.gc.attachInlinePolicy(
      new iam.Policy(this, 'GcFailuresPolicy', {
        statements: sendTo('SendFailedRuns', this.queues.scheduledFailures, this.queues.key),
      }),
    );
    onlySenders(this.queues.events, 'OnlyForwarderScheduleAndFunctions', [
      this.forwarder.role,
      schedules.role,
      ...this.functions.names.map((n) => roles[n]),
    ]);
    onlySenders(
      this.queues.termination,
      'OnlyFunctions',
      this.functions.names.map((n) => roles[n]),
    );
    this.operations = new Operations(this, 'Operations', {
      cluster: config.name,
      alarms: config.alarms,
      queues: this.queues.all,
      scheduledFailures: this.queues.scheduledFailures,
      functions: this.functions.names.map((name) => ({
        name,
        fn: this.function(name),
        timeoutSeconds: specs[name].timeoutSeconds,
      })),
    });

    new CfnOutput(this, 'EventsQueueUrl', {
      value: this.queues.events.queueUrl,
      description: 'karpless forwarder manifest --queue-url',
    });
    new CfnOutput(this, 'ForwarderRoleArn', {
      value: this.forwarder.role.roleArn,
      // Under Pod Identity the association supplies credentials and an IRSA annotation would break them.
      description:
        config.forwarder?.identity === 'irsa'
          ? 'karpless forwarder manifest --role-arn (IRSA)'
          : 'Pod Identity association role; do not pass it as --role-arn',
    });
    new CfnOutput(this, 'NodeRoleName', {
      value: this.nodeIdentity.role.roleName,
      description: 'EC2NodeClass spec.role',
    });
    new CfnOutput(this, 'TableName', {
      value: this.table.table.tableName,
      description: 'karpless nodeclaims / explain --table',
    });
    new CfnOutput(this, 'ReaderPolicyArn', {
      value: this.table.readerPolicy.managedPolicyArn,
      description: 'Attach to whoever runs karpless nodeclaims / explain: dynamodb:Query on the table only',
    });
    new CfnOutput(this, 'ControllerGroup', {
      value: CONTROLLER_GROUP,
      description: 'Kubernetes group of the functions',
    });
    new CfnOutput(this, 'InstanceProfileName', {
      value: this.nodeIdentity.instanceProfile.instanceProfileName,
      description: 'EC2NodeClass spec.instanceProfile (or name NodeRoleName in spec.role)',
    });
    new CfnOutput(this, 'DashboardName', { value: this.operations.dashboard.dashboardName });
  }

  /** A deployed function (stacks/functions.ts). */
  function(name: FunctionName): nodejs.NodejsFunction {
    const fn = this.functions.functions[name];
    if (!fn) throw new Error(`${name} is not deployed as its own function in this stack`);
    return fn;
  }
}
