// Least-privilege IAM for the functions, one statement group per Permission of stacks/functions.ts. No wildcard
// actions. Creating EC2 resources requires this cluster's tags on the request; tagging is allowed only as part of
// those creates; terminating and deleting require this cluster's tags on the resource; the node role can be passed
// only to EC2.
import { Aws } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { keys } from '../shared/aws/dynamo/schema';
import { TAG_CLUSTER_PREFIX, TAG_KARPLESS_CLUSTER, TAG_NODEPOOL } from './constants';
import type { Permission } from './functions';

export interface PermissionContext {
  cluster: string;
  table: dynamodb.ITableV2;
  instanceIdIndex: string;
  eventsQueue: sqs.IQueue;
  terminationQueue: sqs.IQueue;
  queueKey?: kms.IKey;
  nodeRole: iam.IRole;
}

/** The EC2 resource types a launch creates and tags. */
export const CREATED_RESOURCE_TYPES = [
  'fleet',
  'instance',
  'volume',
  'network-interface',
  'launch-template',
  'spot-instances-request',
] as const;
export const LAUNCH_ACTIONS = ['ec2:CreateFleet', 'ec2:RunInstances', 'ec2:CreateLaunchTemplate'];

const ec2Arn = (type: string, owned = true) =>
  `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${owned ? Aws.ACCOUNT_ID : ''}:${type}/*`;

export function clusterTagConditions(cluster: string, kind: 'aws:RequestTag' | 'aws:ResourceTag') {
  return {
    StringEquals: {
      [`${kind}/${TAG_CLUSTER_PREFIX}${cluster}`]: 'owned',
      // Karpenter's own instances carry the two tags above too; during a migration Karpless must never terminate
      // or reuse them, so existing resources must also be Karpless's.
      ...(kind === 'aws:ResourceTag' && { [`${kind}/${TAG_KARPLESS_CLUSTER}`]: cluster }),
    },
    // Null = false: the tag must be present (any NodePool).
    Null: { [`${kind}/${TAG_NODEPOOL}`]: 'false' },
  };
}

/** `actions` on the existing EC2 resources of one type that are this cluster's (they carry its tags). */
function onClusterTagged(sid: string, actions: string[], type: string, cluster: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    actions,
    resources: [ec2Arn(type)],
    conditions: clusterTagConditions(cluster, 'aws:ResourceTag'),
  });
}

export function statementsFor(permission: Permission, ctx: PermissionContext): iam.PolicyStatement[] {
  const { cluster } = ctx;
  // Every item of the cluster lives under one partition key (shared/aws/dynamo/schema.ts).
  const ownPartition = { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [keys.cluster(cluster)] } };
  switch (permission) {
    case 'read-state':
      return [
        new iam.PolicyStatement({
          sid: 'ReadState',
          actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
          resources: [ctx.table.tableArn],
          conditions: ownPartition,
        }),
        new iam.PolicyStatement({
          sid: 'FindClaimByInstanceId',
          // The index is keyed by instance id, so LeadingKeys cannot apply; the store checks PK itself.
          actions: ['dynamodb:Query'],
          resources: [`${ctx.table.tableArn}/index/${ctx.instanceIdIndex}`],
        }),
      ];
    case 'write-state':
      return [
        new iam.PolicyStatement({
          sid: 'WriteState',
          actions: [
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:DeleteItem',
            'dynamodb:BatchWriteItem',
            'dynamodb:ConditionCheckItem',
          ],
          resources: [ctx.table.tableArn],
          conditions: ownPartition,
        }),
      ];
    case 'describe-ec2':
      return [
        new iam.PolicyStatement({
          sid: 'DescribeEC2',
          // Describe calls support no resource-level permissions; the region condition is the available scope.
          actions: [
            'ec2:DescribeAvailabilityZones',
            'ec2:DescribeCapacityReservations',
            'ec2:DescribeImages',
            'ec2:DescribeInstances',
            'ec2:DescribeInstanceTypeOfferings',
            'ec2:DescribeInstanceTypes',
            'ec2:DescribeLaunchTemplates',
            'ec2:DescribeSecurityGroups',
            'ec2:DescribeSubnets',
          ],
          resources: ['*'],
          conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
        }),
        new iam.PolicyStatement({
          sid: 'ReadPublicAmiParameters',
          actions: ['ssm:GetParameter'],
          resources: [
            `arn:${Aws.PARTITION}:ssm:${Aws.REGION}::parameter/aws/service/eks/optimized-ami/*`,
            `arn:${Aws.PARTITION}:ssm:${Aws.REGION}::parameter/aws/service/bottlerocket/*`,
            `arn:${Aws.PARTITION}:ssm:${Aws.REGION}::parameter/aws/service/ami-windows-latest/*`,
          ],
        }),
      ];
    case 'launch':
      return [
        new iam.PolicyStatement({
          sid: 'CreateOnlyClusterTaggedResources',
          actions: LAUNCH_ACTIONS,
          resources: CREATED_RESOURCE_TYPES.map((t) => ec2Arn(t)),
          conditions: {
            ...clusterTagConditions(cluster, 'aws:RequestTag'),
            StringEquals: {
              [`aws:RequestTag/${TAG_CLUSTER_PREFIX}${cluster}`]: 'owned',
              [`aws:RequestTag/${TAG_KARPLESS_CLUSTER}`]: cluster,
            },
          },
        }),
        onClusterTagged(
          'LaunchFromClusterLaunchTemplates',
          ['ec2:CreateFleet', 'ec2:RunInstances'],
          'launch-template',
          cluster,
        ),
        new iam.PolicyStatement({
          sid: 'LaunchUsingSelectedImagesSubnetsAndSecurityGroups',
          // Existing resources the EC2NodeClass selects: they are used, not created, so they carry no request tags.
          actions: ['ec2:CreateFleet', 'ec2:RunInstances'],
          // Snapshots too, as in Karpenter's policy: an AMI's root volume is created from one.
          // Capacity reservations too: a reserved launch targets one (docs/aws.md, Capacity reservations).
          resources: [
            ec2Arn('image', false),
            ec2Arn('snapshot', false),
            ec2Arn('subnet'),
            ec2Arn('security-group'),
            ec2Arn('capacity-reservation'),
          ],
          conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
        }),
        new iam.PolicyStatement({
          sid: 'TagOnlyWhileCreating',
          actions: ['ec2:CreateTags'],
          resources: CREATED_RESOURCE_TYPES.map((t) => ec2Arn(t)),
          conditions: {
            StringEquals: {
              [`aws:RequestTag/${TAG_CLUSTER_PREFIX}${cluster}`]: 'owned',
              'ec2:CreateAction': ['CreateFleet', 'RunInstances', 'CreateLaunchTemplate'],
            },
          },
        }),
        new iam.PolicyStatement({
          sid: 'PassNodeRoleToEC2',
          actions: ['iam:PassRole'],
          resources: [ctx.nodeRole.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
        }),
        new iam.PolicyStatement({
          sid: 'NameTheMissingPermission',
          // Turns an UnauthorizedOperation into the missing action in the error; no resources to scope to.
          actions: ['sts:DecodeAuthorizationMessage'],
          resources: ['*'],
        }),
      ];
    case 'instance-profiles': {
      // Profiles for an EC2NodeClass `role` (shared/aws/ec2/instance-profile.ts), under the /karpless/ path.
      const profiles = [`arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:instance-profile/karpless/*`];
      const requestTagged = { StringEquals: { [`aws:RequestTag/${TAG_CLUSTER_PREFIX}${cluster}`]: 'owned' } };
      return [
        new iam.PolicyStatement({
          sid: 'ReadInstanceProfiles',
          actions: ['iam:GetInstanceProfile'],
          resources: profiles,
        }),
        new iam.PolicyStatement({
          sid: 'CreateClusterInstanceProfiles',
          actions: ['iam:CreateInstanceProfile'],
          resources: profiles,
          conditions: {
            StringEquals: {
              [`aws:RequestTag/${TAG_CLUSTER_PREFIX}${cluster}`]: 'owned',
              [`aws:RequestTag/${TAG_KARPLESS_CLUSTER}`]: cluster,
            },
          },
        }),
        new iam.PolicyStatement({
          sid: 'TagClusterInstanceProfiles',
          actions: ['iam:TagInstanceProfile'],
          resources: profiles,
          conditions: requestTagged,
        }),
        new iam.PolicyStatement({
          sid: 'ManageClusterInstanceProfiles',
          actions: ['iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile'],
          resources: profiles,
          conditions: { StringEquals: { [`aws:ResourceTag/${TAG_CLUSTER_PREFIX}${cluster}`]: 'owned' } },
        }),
      ];
    }
    case 'terminate-instances':
      return [onClusterTagged('TerminateClusterInstances', ['ec2:TerminateInstances'], 'instance', cluster)];
    case 'delete-launch-templates':
      return [
        onClusterTagged('DeleteClusterLaunchTemplates', ['ec2:DeleteLaunchTemplate'], 'launch-template', cluster),
      ];
    case 'pricing':
      return [
        new iam.PolicyStatement({
          sid: 'ReadOnDemandPrices',
          // The Price List API has no resources to scope to.
          actions: ['pricing:GetProducts'],
          resources: ['*'],
        }),
        new iam.PolicyStatement({
          sid: 'ReadSpotPrices',
          // Like the other Describe calls, no resource-level permissions; the region condition is the scope.
          actions: ['ec2:DescribeSpotPriceHistory'],
          resources: ['*'],
          conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
        }),
      ];
    case 'kubernetes':
      return [
        new iam.PolicyStatement({
          sid: 'DescribeCluster',
          actions: ['eks:DescribeCluster'],
          resources: [`arn:${Aws.PARTITION}:eks:${Aws.REGION}:${Aws.ACCOUNT_ID}:cluster/${cluster}`],
        }),
      ];
    case 'send-events':
      return sendTo('SendClusterEvents', ctx.eventsQueue, ctx.queueKey);
    case 'send-termination':
      return sendTo('SendTerminationSteps', ctx.terminationQueue, ctx.queueKey);
  }
}

/** An SQS consumer's right to send poison messages straight to its own queue's DLQ, and no other queue. */
export function deadLetterStatements(dlq: sqs.IQueue, key: kms.IKey | undefined): iam.PolicyStatement[] {
  return sendTo('DeadLetterPoisonMessages', dlq, key);
}

/** The right to send to one queue (and to encrypt for it when it has a key), under the given statement id. */
export function sendTo(sid: string, queue: sqs.IQueue, key: kms.IKey | undefined): iam.PolicyStatement[] {
  const statements = [new iam.PolicyStatement({ sid, actions: ['sqs:SendMessage'], resources: [queue.queueArn] })];
  if (key) {
    statements.push(
      new iam.PolicyStatement({
        sid: `${sid}Encrypt`,
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [key.keyArn],
      }),
    );
  }
  return statements;
}
