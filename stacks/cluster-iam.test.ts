// The synthesized ClusterStack's IAM (least privilege per function) and the identities that reach the cluster.
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTROLLER_GROUP } from '../shared/api/controller-group';
import type { ClusterStack } from './cluster-stack';
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
    // resource tag) and the images, snapshots, subnets, security groups and capacity reservations the EC2NodeClass
    // selects.
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
        ).toEqual(['image/*', 'snapshot/*', 'subnet/*', 'security-group/*', 'capacity-reservation/*']);
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

  it('lets only the GC function, which runs the 12-hourly price refresh, read the Pricing API and spot price history', () => {
    const priceActions = ['pricing:GetProducts', 'ec2:DescribeSpotPriceHistory'];
    const reads = (n: string) =>
      statementsOfFunction(template, fnName(n))
        .flatMap(actionsOf)
        .filter((a) => priceActions.includes(a))
        .sort();
    expect(reads('gc')).toEqual([...priceActions].sort());
    for (const n of DEPLOYED.filter((d) => d !== 'gc')) expect(reads(n), n).toEqual([]);
    const spot = bySid(statementsOfFunction(template, fnName('gc')), 'ReadSpotPrices');
    expect(spot?.Condition).toEqual({ StringEquals: { 'aws:RequestedRegion': { Ref: 'AWS::Region' } } });
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
      DisableSessionTags: false,
    });
    const trust = template.toJSON().Resources[logicalId(stack.forwarder.role)].Properties.AssumeRolePolicyDocument;
    expect(trust.Statement.flatMap((s: Statement) => actionsOf(s)).sort()).toEqual([
      'sts:AssumeRole',
      'sts:TagSession',
    ]);
    // Only the EKS service acting for this account, for this cluster's forwarder service account, may assume it: every
    // statement carries the conditions, so no statement lets another account's or cluster's association in.
    for (const statement of trust.Statement as (Statement & { Principal: unknown })[]) {
      expect(statement.Principal).toEqual({ Service: 'pods.eks.amazonaws.com' });
      const equals = statement.Condition?.StringEquals ?? {};
      expect(Object.fromEntries(Object.entries(equals).map(([k, v]) => [k, flat(v)]))).toEqual({
        'aws:SourceAccount': '111122223333',
        'aws:RequestTag/eks-cluster-arn': 'arn:<AWS::Partition>:eks:us-west-2:111122223333:cluster/demo',
        'aws:RequestTag/kubernetes-namespace': 'karpless',
        'aws:RequestTag/kubernetes-service-account': 'karpless-forwarder',
      });
    }
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
