import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseControlMessage } from '../shared/events/control';
import { INTERRUPTION_EVENT_PATTERNS } from '../shared/events/eventbridge';
import { parseGcTick } from '../shared/events/schedule';
import type { ClusterStack } from './cluster-stack';
import { CONTROLLER_GROUP } from './constants';
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
    template.resourceCountIs('AWS::SQS::Queue', 6);
  });

  it('denies every non-TLS request on all six queues', () => {
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy') as Resources);
    const tlsOnly = policies.filter((p) =>
      (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some(
        (s) => s.Effect === 'Deny' && JSON.stringify(s.Condition) === '{"Bool":{"aws:SecureTransport":"false"}}',
      ),
    );
    const covered = tlsOnly.flatMap((p) => (p.Properties.Queues as { Ref: string }[]).map((q) => q.Ref));
    expect(new Set(covered).size).toBe(6);
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
            BIND_PODS: 'true',
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

describe('IAM least privilege', () => {
  it('uses no wildcard action anywhere', () => {
    const actions = allStatements(template).flatMap(actionsOf);
    expect(actions.length).toBeGreaterThan(20);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('creates fleets, instances and launch templates only with this cluster’s request tags', () => {
    const s = bySid(
      statementsOfFunction(template, fnName('provisioner')),
      'CreateOnlyClusterTaggedResources',
    ) as Statement;
    expect(actionsOf(s).sort()).toEqual(['ec2:CreateFleet', 'ec2:CreateLaunchTemplate', 'ec2:RunInstances']);
    expect(s.Condition).toEqual({
      StringEquals: {
        'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
        'aws:RequestTag/karpless.dev/cluster': 'demo',
      },
      Null: { 'aws:RequestTag/karpenter.sh/nodepool': 'false' },
    });
    const resources = flat(s.Resource);
    for (const type of [
      'fleet',
      'instance',
      'volume',
      'network-interface',
      'launch-template',
      'spot-instances-request',
    ]) {
      expect(resources).toContain(`:${type}/*`);
    }
    // The only other statements allowing these actions use existing resources: cluster launch templates (by
    // resource tag) and the images, snapshots, subnets and security groups the EC2NodeClass selects.
    const launchers = allStatements(template).filter((st) =>
      actionsOf(st).some(
        (a) => a === 'ec2:CreateFleet' || a === 'ec2:RunInstances' || a === 'ec2:CreateLaunchTemplate',
      ),
    );
    for (const st of launchers) {
      if (st.Sid === 'CreateOnlyClusterTaggedResources') continue;
      expect(actionsOf(st)).not.toContain('ec2:CreateLaunchTemplate');
      if (st.Sid === 'LaunchFromClusterLaunchTemplates') {
        expect(flat(st.Resource)).toMatch(/:launch-template\/\*$/);
        expect(st.Condition).toEqual({
          StringEquals: {
            'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned',
            'aws:ResourceTag/karpless.dev/cluster': 'demo',
          },
          Null: { 'aws:ResourceTag/karpenter.sh/nodepool': 'false' },
        });
      } else {
        expect(st.Sid).toBe('LaunchUsingSelectedImagesSubnetsAndSecurityGroups');
        expect(
          flat(st.Resource)
            .split(',')
            .map((r) => r.split(':').at(-1)),
        ).toEqual(['image/*', 'snapshot/*', 'subnet/*', 'security-group/*']);
      }
    }
  });

  it('tags only while creating', () => {
    const tagging = allStatements(template).filter((s) => actionsOf(s).includes('ec2:CreateTags'));
    expect(tagging.length).toBeGreaterThan(0);
    for (const s of tagging) {
      expect(s.Condition?.StringEquals?.['ec2:CreateAction']).toEqual([
        'CreateFleet',
        'RunInstances',
        'CreateLaunchTemplate',
      ]);
      expect(s.Condition?.StringEquals?.['aws:RequestTag/kubernetes.io/cluster/demo']).toBe('owned');
    }
  });

  it('terminates instances and deletes launch templates only when tagged with the cluster and a NodePool', () => {
    const destructive = allStatements(template).filter((s) =>
      actionsOf(s).some((a) => a === 'ec2:TerminateInstances' || a === 'ec2:DeleteLaunchTemplate'),
    );
    expect(destructive.map((s) => s.Sid).sort()).toEqual(
      [
        'DeleteClusterLaunchTemplates',
        'TerminateClusterInstances',
        'TerminateClusterInstances',
        'TerminateClusterInstances',
      ].sort(),
    );
    for (const s of destructive) {
      // Karpenter's instances have the first two tags as well; only Karpless's have the third.
      expect(s.Condition).toEqual({
        StringEquals: {
          'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned',
          'aws:ResourceTag/karpless.dev/cluster': 'demo',
        },
        Null: { 'aws:ResourceTag/karpenter.sh/nodepool': 'false' },
      });
    }
  });

  it('passes only the node role, only to EC2', () => {
    const passing = allStatements(template).filter((s) => actionsOf(s).includes('iam:PassRole'));
    expect(passing.length).toBeGreaterThan(0);
    for (const s of passing) {
      expect(s.Resource).toEqual({ 'Fn::GetAtt': [logicalId(stack.nodeIdentity.role), 'Arn'] });
      expect(s.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } });
    }
  });

  it('keeps DynamoDB access to the cluster’s own partition and the GSI', () => {
    const s = statementsOfFunction(template, fnName('termination'));
    expect(bySid(s, 'ReadState')?.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['CLUSTER#demo'] },
    });
    expect(bySid(s, 'WriteState')?.Condition).toEqual(bySid(s, 'ReadState')?.Condition);
    expect(flat(bySid(s, 'FindClaimByInstanceId')?.Resource)).toMatch(/\/index\/byInstanceId$/);
  });

  it('gives each function only its own groups', () => {
    const sids = (n: string) => new Set(statementsOfFunction(template, fnName(n)).map((s) => s.Sid));
    expect(sids('termination').has('CreateOnlyClusterTaggedResources')).toBe(false);
    expect(sids('termination').has('TerminateClusterInstances')).toBe(true);
    expect(sids('interruption').has('TerminateClusterInstances')).toBe(false);
    expect(sids('interruption').has('CreateOnlyClusterTaggedResources')).toBe(true);
    expect(sids('gc').has('DeleteClusterLaunchTemplates')).toBe(true);
    expect(sids('provisioner').has('DeleteClusterLaunchTemplates')).toBe(false);
    expect(sids('gc').has('CreateOnlyClusterTaggedResources')).toBe(false);
  });

  it('lets the provisioner schedule disruption re-checks on the termination queue and termination relay them to the FIFO queue', () => {
    // DisruptionDue: the provisioner delays it on the standard termination queue (a FIFO queue cannot delay one
    // message); the termination function sends it on to the cluster queue, where only the provisioner reads it.
    const queueArn = (q: typeof stack.queues.events) => ({ 'Fn::GetAtt': [logicalId(q), 'Arn'] });
    const routes = [
      ['provisioner', 'SendTerminationSteps', stack.queues.termination],
      ['termination', 'SendClusterEvents', stack.queues.events],
    ] as const;
    for (const [name, sid, queue] of routes) {
      expect(bySid(statementsOfFunction(template, fnName(name)), sid)).toMatchObject({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: queueArn(queue),
      });
    }
    for (const name of ['provisioner', 'termination']) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: fnName(name),
        Environment: {
          Variables: Match.objectLike({
            QUEUE_URL: { Ref: logicalId(stack.queues.events) },
            TERMINATION_QUEUE_URL: { Ref: logicalId(stack.queues.termination) },
          }),
        },
      });
    }
  });

  it("lets each SQS consumer send poison messages to its own queue's DLQ, named in DLQ_URL, and to no other", () => {
    const dlqs = {
      provisioner: stack.queues.eventsDlq,
      interruption: stack.queues.interruptionDlq,
      termination: stack.queues.terminationDlq,
    };
    const dlqArn = (q: (typeof dlqs)[keyof typeof dlqs]) => ({ 'Fn::GetAtt': [logicalId(q), 'Arn'] });
    for (const [name, dlq] of Object.entries(dlqs)) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: fnName(name),
        Environment: { Variables: Match.objectLike({ DLQ_URL: { Ref: logicalId(dlq) } }) },
      });
      const statements = statementsOfFunction(template, fnName(name));
      expect(bySid(statements, 'DeadLetterPoisonMessages')).toMatchObject({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: dlqArn(dlq),
      });
      // No statement of this function reaches another queue's DLQ.
      const others = Object.values(dlqs).filter((q) => q !== dlq);
      for (const other of others) {
        expect(JSON.stringify(statements)).not.toContain(JSON.stringify(dlqArn(other)));
      }
    }
    expect(bySid(statementsOfFunction(template, fnName('gc')), 'DeadLetterPoisonMessages')).toBeUndefined();
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: fnName('gc'),
      Environment: { Variables: Match.objectLike({ DLQ_URL: Match.absent() }) },
    });
  });

  it('creates instance profiles only under /karpless/ with the cluster tags', () => {
    const s = statementsOfFunction(template, fnName('provisioner'));
    const create = bySid(s, 'CreateClusterInstanceProfiles') as Statement;
    expect(flat(create.Resource)).toMatch(/:instance-profile\/karpless\/\*$/);
    expect(create.Condition).toEqual({
      StringEquals: {
        'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
        'aws:RequestTag/karpless.dev/cluster': 'demo',
      },
    });
    expect(bySid(s, 'ManageClusterInstanceProfiles')?.Condition).toEqual({
      StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned' },
    });
  });
});

describe('events and schedules', () => {
  it('routes the four EC2 and Health event kinds into the interruption queue', () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule') as Resources);
    expect(rules).toHaveLength(4);
    const patterns = rules.map((r) => r.Properties.EventPattern);
    for (const p of Object.values(INTERRUPTION_EVENT_PATTERNS)) {
      expect(patterns).toContainEqual(
        expect.objectContaining({ source: [...p.source], 'detail-type': [...p.detailType] }),
      );
    }
    expect(patterns).toContainEqual(
      expect.objectContaining({ detail: { service: ['EC2'], eventTypeCategory: ['scheduledChange'] } }),
    );
    for (const r of rules) {
      expect(r.Properties.Targets).toEqual([
        expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalId(stack.queues.interruption), 'Arn'] } }),
      ]);
    }
  });

  it('schedules the sweep into the FIFO group of the cluster and GC onto its function', () => {
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule') as Resources);
    expect(schedules).toHaveLength(2);
    const target = (arn: string) =>
      schedules.map((s) => s.Properties.Target as Record<string, unknown>).find((t) => flat(t.Arn) === arn);
    const sweep = target(`<${logicalId(stack.queues.events)}.Arn>`);
    expect(sweep?.SqsParameters).toEqual({ MessageGroupId: 'demo' });
    const tick = String(sweep?.Input).replace('<aws.scheduler.scheduled-time>', '2026-11-21T21:00:00Z');
    expect(parseControlMessage(tick)).toMatchObject({ kind: 'Sweep', cluster: 'demo' });
    const gc = target(`<${logicalId(stack.function('gc'))}.Arn>`);
    expect(
      parseGcTick(String(gc?.Input).replace('<aws.scheduler.scheduled-time>', '2026-11-21T21:00:00Z')).cluster,
    ).toBe('demo');
    for (const s of schedules) expect(s.Properties.ScheduleExpression).toBe('rate(1 minute)');
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
    ]);
  });
});

describe('identities and cluster access', () => {
  it('creates the node role with the four managed policies, its instance profile and an EC2_LINUX access entry', () => {
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'ec2.amazonaws.com' } })],
      }),
      ManagedPolicyArns: [
        'AmazonEKSWorkerNodePolicy',
        'AmazonEKS_CNI_Policy',
        'AmazonEC2ContainerRegistryReadOnly',
        'AmazonSSMManagedInstanceCore',
      ].map((p) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::aws:policy/${p}`]] })),
    });
    template.hasResourceProperties('AWS::IAM::InstanceProfile', {
      Roles: [{ Ref: logicalId(stack.nodeIdentity.role) }],
    });
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'demo',
      PrincipalArn: { 'Fn::GetAtt': [logicalId(stack.nodeIdentity.role), 'Arn'] },
      Type: 'EC2_LINUX',
    });
  });

  it('maps every function role to the controller group through an access entry', () => {
    const entries = Object.values(
      template.findResources('AWS::EKS::AccessEntry', { Properties: { Type: 'STANDARD' } }) as Resources,
    );
    expect(entries).toHaveLength(DEPLOYED.length);
    const principals = entries.map((e) => flat(e.Properties.PrincipalArn));
    for (const name of DEPLOYED) expect(principals).toContain(`<${roleOfFunction(template, fnName(name))}.Arn>`);
    for (const e of entries) expect(e.Properties.KubernetesGroups).toEqual([CONTROLLER_GROUP]);
  });

  it('lets the forwarder, through Pod Identity, only send to its queue', () => {
    template.hasResourceProperties('AWS::EKS::PodIdentityAssociation', {
      ClusterName: 'demo',
      Namespace: 'karpless',
      ServiceAccount: 'karpless-forwarder',
      RoleArn: { 'Fn::GetAtt': [logicalId(stack.forwarder.role), 'Arn'] },
    });
    const trust = template.toJSON().Resources[logicalId(stack.forwarder.role)].Properties.AssumeRolePolicyDocument;
    expect(trust.Statement.flatMap((s: Statement) => actionsOf(s)).sort()).toEqual([
      'sts:AssumeRole',
      'sts:TagSession',
    ]);
    const statements = allStatements(template).filter((s) => s.Sid === 'SendClusterEvents');
    const forwarderPolicy = Object.values(template.findResources('AWS::IAM::Policy') as Resources).find((p) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === logicalId(stack.forwarder.role)),
    );
    expect((forwarderPolicy!.Properties.PolicyDocument as { Statement: Statement[] }).Statement).toEqual([
      {
        Sid: 'SendClusterEvents',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [logicalId(stack.queues.events), 'Arn'] },
      },
    ]);
    expect(statements.length).toBeGreaterThan(1);
  });

  it('uses IRSA when an OIDC provider is configured', () => {
    const arn = 'arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC';
    const { stack: irsa, template: t } = synthCluster({
      forwarder: { identity: 'irsa', oidcProviderArn: arn, namespace: 'ops' },
    });
    t.resourceCountIs('AWS::EKS::PodIdentityAssociation', 0);
    const trust =
      t.toJSON().Resources[irsa.getLogicalId(irsa.forwarder.role.node.defaultChild as never)].Properties
        .AssumeRolePolicyDocument;
    expect(trust.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRoleWithWebIdentity',
        Principal: { Federated: arn },
        Condition: {
          StringEquals: {
            'oidc.eks.us-west-2.amazonaws.com/id/ABC:sub': 'system:serviceaccount:ops:karpless-forwarder',
            'oidc.eks.us-west-2.amazonaws.com/id/ABC:aud': 'sts.amazonaws.com',
          },
        },
      },
    ]);
  });
});

describe('operations', () => {
  it('alarms on DLQ depth, oldest message age, errors, throttles and p99 duration, to the topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Resources).map(
      (a) => a.Properties,
    );
    expect(alarms).toHaveLength(3 + 3 + DEPLOYED.length * 3 + 1);
    const count = (metric: string) => alarms.filter((a) => a.MetricName === metric).length;
    expect(count('ApproximateNumberOfMessagesVisible')).toBe(3);
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
