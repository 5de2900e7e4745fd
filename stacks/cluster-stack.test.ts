// The synthesized ClusterStack: queues, table, functions, events and schedules. IAM and cluster access are in
// cluster-iam.test.ts, alarms and the dashboard in cluster-operations.test.ts.
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseControlMessage } from '../shared/events/control';
import { INTERRUPTION_EVENT_PATTERNS } from '../shared/events/eventbridge';
import { parseGcTick } from '../shared/events/schedule';
import type { ClusterStack } from './cluster-stack';
import { MAX_RECEIVE_COUNT } from './constructs/queues';
import { FUNCTIONS } from './functions';
import { actionsOf, allStatements, flat, roleOfFunction, type Statement, statementsOfFunction } from './testing/iam';
import { synthCluster } from './testing/synth';

type Template = ReturnType<typeof synthCluster>['template'];
type Resources = Record<string, { Properties: Record<string, unknown>; DependsOn?: string[] }>;

const DEPLOYED = ['provisioner', 'interruption', 'termination', 'gc'] as const;
const fnName = (n: string) => `karpless-demo-${n}`;
const bySid = (statements: Statement[], sid: string) => statements.find((s) => s.Sid === sid);

let stack: ClusterStack;
let template: Template;
beforeAll(() => {
  ({ stack, template } = synthCluster());
});

function functionResource(name: string) {
  const functions = Object.values(template.findResources('AWS::Lambda::Function') as Resources);
  return functions.find((f) => f.Properties.FunctionName === fnName(name));
}

function logicalId(construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as never);
}

describe('queues', () => {
  it('has a high-throughput FIFO events queue with a FIFO DLQ', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: true,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 270,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack.queues.eventsDlq), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
    expect(template.toJSON().Resources[logicalId(stack.queues.eventsDlq)].Properties.FifoQueue).toBe(true);
  });

  it('has standard interruption and termination queues, each with its DLQ', () => {
    for (const [queue, dlq, count] of [
      [stack.queues.interruption, stack.queues.interruptionDlq, MAX_RECEIVE_COUNT.interruption],
      [stack.queues.termination, stack.queues.terminationDlq, MAX_RECEIVE_COUNT.termination],
    ] as const) {
      const props = template.toJSON().Resources[logicalId(queue)].Properties;
      expect(props.FifoQueue).toBeUndefined();
      expect(props.SqsManagedSseEnabled).toBe(true);
      expect(props.RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(dlq), 'Arn'] },
        maxReceiveCount: count,
      });
    }
    // The seventh: scheduled work that failed (undelivered ticks, failed GC runs), a standard queue without redrive.
    const failures = template.toJSON().Resources[logicalId(stack.queues.scheduledFailures)].Properties;
    expect(failures.FifoQueue).toBeUndefined();
    expect(failures.RedrivePolicy).toBeUndefined();
    template.resourceCountIs('AWS::SQS::Queue', 7);
  });

  it('denies every non-TLS request on all seven queues', () => {
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy') as Resources);
    const tlsOnly = policies.filter((p) =>
      (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some(
        (s) => s.Effect === 'Deny' && JSON.stringify(s.Condition) === '{"Bool":{"aws:SecureTransport":"false"}}',
      ),
    );
    const covered = tlsOnly.flatMap((p) => (p.Properties.Queues as { Ref: string }[]).map((q) => q.Ref));
    expect(new Set(covered).size).toBe(7);
  });

  it('encrypts with a rotated KMS key when configured', () => {
    const { template: kms } = synthCluster({ queueEncryption: 'kms' });
    kms.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const queues = Object.values(kms.findResources('AWS::SQS::Queue') as Resources);
    expect(queues.every((q) => q.Properties.KmsMasterKeyId !== undefined)).toBe(true);
    // Senders get exactly GenerateDataKey and Decrypt, no wildcard action.
    const kmsActions = allStatements(kms)
      .flatMap(actionsOf)
      .filter((a) => a.startsWith('kms:'));
    expect(new Set(kmsActions)).toEqual(new Set(['kms:GenerateDataKey', 'kms:Decrypt']));
  });
});

describe('table', () => {
  it('is on-demand with PITR, TTL and the instance-id GSI from shared/aws/dynamo/schema', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byInstanceId',
          KeySchema: [{ AttributeName: 'instanceId', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
    });
  });
});

describe('functions', () => {
  it('deploys the queue and schedule consumers on Node 22 arm64, each with its own role and log group', () => {
    template.resourceCountIs('AWS::Lambda::Function', DEPLOYED.length);
    const roles = new Set<string>();
    for (const name of DEPLOYED) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: fnName(name),
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: FUNCTIONS[name].timeoutSeconds,
        MemorySize: FUNCTIONS[name].memoryMiB,
        LoggingConfig: Match.objectLike({ LogFormat: 'JSON' }),
        Environment: {
          Variables: Match.objectLike({
            CLUSTER_NAME: 'demo',
            KUBERNETES_VERSION: '1.31',
            QUEUE_URL: { Ref: logicalId(stack.queues.events) },
            TERMINATION_QUEUE_URL: { Ref: logicalId(stack.queues.termination) },
            TABLE_NAME: { Ref: logicalId(stack.table.table) },
            REBALANCE: 'record',
            // Binding is opt-in (clusters.yaml bindPods); kube-scheduler binds by default.
            BIND_PODS: 'false',
            POWERTOOLS_SERVICE_NAME: name,
            POWERTOOLS_METRICS_NAMESPACE: 'Karpless',
          }),
        },
      });
      roles.add(roleOfFunction(template, fnName(name)));
      template.hasResourceProperties('AWS::Logs::LogGroup', {
        LogGroupName: `/aws/lambda/${fnName(name)}`,
        RetentionInDays: 30,
      });
    }
    expect(roles.size).toBe(DEPLOYED.length);
  });

  it('maps each queue to exactly one function, reporting partial batch failures', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping') as Resources);
    expect(mappings).toHaveLength(3);
    const byQueue = Object.fromEntries(mappings.map((m) => [flat(m.Properties.EventSourceArn), m.Properties]));
    const expectMapping = (queue: typeof stack.queues.events, fn: string, batchSize: number) => {
      const props = byQueue[`<${logicalId(queue)}.Arn>`];
      expect(props?.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      expect(props?.BatchSize).toBe(batchSize);
      expect(props?.FunctionName).toEqual({ Ref: logicalId(stack.function(fn as 'gc')) });
    };
    expectMapping(stack.queues.events, 'provisioner', 10);
    expectMapping(stack.queues.interruption, 'interruption', 10);
    expectMapping(stack.queues.termination, 'termination', 5);
  });

  it('bounds each event source and reserves concurrency for the interruption path only', () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping') as Resources);
    expect(mappings.map((m) => m.Properties.ScalingConfig)).toEqual([
      { MaximumConcurrency: 2 },
      { MaximumConcurrency: 2 },
      { MaximumConcurrency: 2 },
    ]);
    const reserved = Object.fromEntries(
      DEPLOYED.map((n) => [n, functionResource(n)?.Properties.ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({ provisioner: undefined, interruption: 2, termination: 2, gc: undefined });
  });

  it('takes the maxima and reservations from the config, and reserves nothing when told 0', () => {
    const { template: custom } = synthCluster({
      concurrency: { maximum: { events: 3, interruption: 5 }, reserved: { interruption: 5, termination: 0 } },
    });
    const mappings = Object.values(custom.findResources('AWS::Lambda::EventSourceMapping') as Resources);
    expect(
      mappings.map((m) => (m.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency),
    ).toEqual([3, 5, 2]);
    const functions = Object.values(custom.findResources('AWS::Lambda::Function') as Resources);
    const reservedOf = (n: string) =>
      functions.find((f) => f.Properties.FunctionName === fnName(n))?.Properties.ReservedConcurrentExecutions;
    expect([reservedOf('interruption'), reservedOf('termination')]).toEqual([5, undefined]);
  });

  it('runs lifecycle and disruption inside the FIFO consumer instead of as functions of their own', () => {
    const names = Object.values(template.findResources('AWS::Lambda::Function')).map((r) =>
      JSON.stringify(r.Properties?.FunctionName ?? ''),
    );
    expect(names.filter((n) => /lifecycle|disruption/.test(n))).toEqual([]);
    expect(names.filter((n) => /provisioner/.test(n))).toHaveLength(1);
  });

  it('runs in the given subnets and security groups for a private endpoint', () => {
    const { template: priv } = synthCluster({
      endpoint: {
        access: 'private',
        vpcId: 'vpc-0a1b2c3d4e5f60718',
        subnetIds: ['subnet-0a1b2c3d4e5f60718', 'subnet-0b1c2d3e4f5a60718'],
        securityGroupIds: ['sg-0a1b2c3d4e5f60718'],
      },
    });
    priv.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: fnName('provisioner'),
      VpcConfig: {
        SubnetIds: ['subnet-0a1b2c3d4e5f60718', 'subnet-0b1c2d3e4f5a60718'],
        SecurityGroupIds: ['sg-0a1b2c3d4e5f60718'],
      },
    });
    const eni = bySid(statementsOfFunction(priv, fnName('gc')), 'AttachToClusterVpc');
    expect(actionsOf(eni as Statement)).toContain('ec2:CreateNetworkInterface');
    // A public cluster's functions get no ENI permissions.
    expect(bySid(statementsOfFunction(template, fnName('gc')), 'AttachToClusterVpc')).toBeUndefined();
  });
});

describe('events and schedules', () => {
  it('routes the five EC2 and Health event kinds into the interruption queue', () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule') as Resources);
    expect(rules).toHaveLength(5);
    const patterns = rules.map((r) => r.Properties.EventPattern);
    for (const p of Object.values(INTERRUPTION_EVENT_PATTERNS)) {
      expect(patterns).toContainEqual(
        expect.objectContaining({ source: [...p.source], 'detail-type': [...p.detailType] }),
      );
    }
    expect(patterns).toContainEqual(
      expect.objectContaining({ detail: { service: ['EC2'], eventTypeCategory: ['scheduledChange'] } }),
    );
    // Karpenter v1.10's extra rule, for interruptible capacity reservations.
    expect(patterns).toContainEqual({
      source: ['aws.ec2'],
      'detail-type': ['EC2 Capacity Reservation Instance Interruption Warning'],
    });
    for (const r of rules) {
      expect(r.Properties.Targets).toEqual([
        expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalId(stack.queues.interruption), 'Arn'] } }),
      ]);
    }
  });

  it('schedules the sweep into the FIFO group of the cluster, and GC and the price refresh onto the GC function', () => {
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule') as Resources);
    expect(schedules).toHaveLength(3);
    const at = '2026-11-21T21:00:00Z';
    const targets = schedules.map((s) => ({
      expression: s.Properties.ScheduleExpression,
      target: s.Properties.Target as Record<string, unknown>,
    }));
    const onArn = (arn: string) => targets.filter((t) => flat(t.target.Arn) === arn);
    const [sweep, ...otherSweeps] = onArn(`<${logicalId(stack.queues.events)}.Arn>`);
    expect(otherSweeps).toEqual([]);
    expect(sweep?.target.SqsParameters).toEqual({ MessageGroupId: 'demo' });
    // The execution id keeps the tick's content, and so its FIFO deduplication id, unguessable.
    expect(String(sweep?.target.Input)).toContain('<aws.scheduler.execution-id>');
    const tick = String(sweep?.target.Input)
      .replace('<aws.scheduler.scheduled-time>', at)
      .replace('<aws.scheduler.execution-id>', 'c0ffee00-0000-4000-8000-000000000001');
    expect(parseControlMessage(tick)).toMatchObject({
      kind: 'Sweep',
      cluster: 'demo',
      execution: 'c0ffee00-0000-4000-8000-000000000001',
    });
    expect(sweep?.expression).toBe('rate(1 minute)');
    const gcTicks = onArn(`<${logicalId(stack.function('gc'))}.Arn>`).map((t) => ({
      expression: t.expression,
      tick: parseGcTick(String(t.target.Input).replace('<aws.scheduler.scheduled-time>', at)),
      deadLetter: t.target.DeadLetterConfig,
    }));
    // Karpenter's pricing controller refreshes on-demand and spot prices every 12 hours.
    expect(gcTicks.map((t) => [t.tick.kind, t.tick.cluster, t.expression]).sort()).toEqual([
      ['GarbageCollect', 'demo', 'rate(1 minute)'],
      ['RefreshPrices', 'demo', 'rate(12 hours)'],
    ]);
    for (const t of gcTicks) {
      expect(t.deadLetter).toEqual({ Arn: { 'Fn::GetAtt': [logicalId(stack.queues.scheduledFailures), 'Arn'] } });
    }
  });

  it('gives the scheduler role only the two targets', () => {
    const role = Object.entries(template.findResources('AWS::IAM::Role') as Resources).find(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'),
    );
    expect(role).toBeDefined();
    const policies = Object.values(template.findResources('AWS::IAM::Policy') as Resources).filter((p) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role?.[0]),
    );
    const statements = policies.flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    expect(statements.map((s) => [s.Sid, s.Action])).toEqual([
      ['SendSweep', 'sqs:SendMessage'],
      ['InvokeGc', 'lambda:InvokeFunction'],
      ['DeadLetterUndeliveredTicks', 'sqs:SendMessage'],
    ]);
  });
});
