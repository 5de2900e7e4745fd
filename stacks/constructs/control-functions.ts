// The six functions as NodejsFunction (esbuild from the local devDependency, settings in stacks/bundling.ts), each
// with its own role holding only the permission groups its spec lists, its own log group, and its trigger. An SQS
// consumer also gets its queue's DLQ (DLQ_URL, SendMessage on that queue only): poison messages go there at once.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, Duration, Fn, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../../shared/metrics';
import { bundlingOptions } from '../bundling';
import type { ClusterConfig } from '../config';
import { functionName } from '../constants';
import { FUNCTION_NAMES, FUNCTIONS, type FunctionName, type FunctionSpec, plans, type QueueName } from '../functions';
import { CREATED_RESOURCE_TYPES, deadLetterStatements, type PermissionContext, statementsFor } from '../permissions';

export { bundlingOptions } from '../bundling';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ControlFunctionsProps {
  config: ClusterConfig;
  permissions: PermissionContext;
  queues: Record<QueueName, sqs.IQueue>;
  /** Each queue's dead-letter queue, where its consumer sends poison messages. */
  deadLetterQueues: Record<QueueName, sqs.IQueue>;
  environment: Record<string, string>;
  /** Tests point every function at one stub entry so they need neither the handlers nor a bundle. */
  entryOverride?: string;
  specs?: Readonly<Record<FunctionName, FunctionSpec>>;
}

export class ControlFunctions extends Construct {
  /** Only the deployed functions (stacks/functions.ts `deployed`) have entries. */
  readonly functions: Partial<Record<FunctionName, nodejs.NodejsFunction>> = {};
  readonly logGroups: Partial<Record<FunctionName, logs.LogGroup>> = {};
  readonly roles: Partial<Record<FunctionName, iam.Role>> = {};
  readonly names: FunctionName[];

  constructor(scope: Construct, id: string, props: ControlFunctionsProps) {
    super(scope, id);
    const specs = props.specs ?? FUNCTIONS;
    const { config } = props;
    const vpc = vpcSettings(this, config);
    this.names = [...FUNCTION_NAMES];

    for (const name of this.names) {
      const spec = specs[name];
      const dlq = 'queue' in spec.trigger ? props.deadLetterQueues[spec.trigger.queue] : undefined;
      const logGroup = new logs.LogGroup(this, `${pascal(name)}Logs`, {
        logGroupName: `/aws/lambda/${functionName(config.name, name)}`,
        retention: config.logRetentionDays as logs.RetentionDays,
      });
      const role = new iam.Role(this, `${pascal(name)}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `Karpless ${name} function of cluster ${config.name}`,
      });
      const policy = new iam.Policy(this, `${pascal(name)}Policy`, {
        statements: [
          new iam.PolicyStatement({
            sid: 'WriteOwnLogs',
            actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            resources: [logGroup.logGroupArn],
          }),
          ...spec.permissions.flatMap((p) => statementsFor(p, props.permissions)),
          ...(dlq ? deadLetterStatements(dlq, props.permissions.queueKey) : []),
          ...(vpc ? [vpcNetworkInterfaceStatement()] : []),
        ],
      });
      role.attachInlinePolicy(policy);
      acknowledgeScopedWildcards(policy);

      const fn = new nodejs.NodejsFunction(this, pascal(name), {
        functionName: functionName(config.name, name),
        description: spec.description,
        entry: props.entryOverride ?? join(REPO_ROOT, spec.entry),
        handler: 'handler',
        projectRoot: REPO_ROOT,
        depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: spec.memoryMiB,
        timeout: Duration.seconds(spec.timeoutSeconds),
        ...reservation(config, name),
        role,
        logGroup,
        loggingFormat: lambda.LoggingFormat.JSON,
        bundling: bundlingOptions(plans(spec)),
        environment: {
          ...props.environment,
          // Read by functions/_wiring/env.ts `readEnv`.
          ...(dlq && { DLQ_URL: dlq.queueUrl }),
          KARPLESS_FUNCTION: name,
          POWERTOOLS_SERVICE_NAME: name,
          POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
          NODE_OPTIONS: '--enable-source-maps',
        },
        ...(vpc && { vpc: vpc.vpc, vpcSubnets: { subnets: vpc.subnets }, securityGroups: vpc.securityGroups }),
      });
      // The inline policy must exist before the event source mapping validates the role.
      fn.node.addDependency(policy);
      Validations.of(fn).acknowledge({
        id: 'AwsSolutions-L1',
        reason: 'Node.js 22 is the runtime the bundles target (esbuild target node22) and the project tests on.',
      });
      this.functions[name] = fn;
      this.logGroups[name] = logGroup;
      this.roles[name] = role;
    }

    for (const name of this.names) {
      const trigger = specs[name].trigger;
      const fn = this.functions[name];
      if (fn && 'queue' in trigger) {
        fn.addEventSource(
          new SqsEventSource(props.queues[trigger.queue], {
            batchSize: trigger.batchSize,
            reportBatchItemFailures: true,
            // Bounds the cluster's share of the region's concurrency (docs/aws.md, "Lambda concurrency").
            maxConcurrency: config.concurrency.maximum[trigger.queue],
          }),
        );
      }
    }
  }
}

/** The interruption path's reserved concurrency (docs/aws.md, "Lambda concurrency"); none for the others. */
function reservation(config: ClusterConfig, name: FunctionName): { reservedConcurrentExecutions?: number } {
  if (name !== 'interruption' && name !== 'termination') return {};
  const reserved = config.concurrency.reserved[name];
  return reserved > 0 ? { reservedConcurrentExecutions: reserved } : {};
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function vpcSettings(scope: Construct, config: ClusterConfig) {
  if (config.endpoint.access !== 'private') return undefined;
  const { vpcId, subnetIds, securityGroupIds } = config.endpoint;
  return {
    vpc: importedVpc(scope, vpcId),
    subnets: subnetIds.map((id, i) => {
      const subnet = ec2.Subnet.fromSubnetId(scope, `Subnet${i}`, id);
      Annotations.of(subnet).acknowledgeWarning(
        '@aws-cdk/aws-ec2:noSubnetRouteTableId',
        'Lambda only places ENIs in the subnet; nothing here reads its route table.',
      );
      return subnet;
    }),
    securityGroups: securityGroupIds.map((id, i) => ec2.SecurityGroup.fromSecurityGroupId(scope, `Sg${i}`, id)),
  };
}

function importedVpc(scope: Construct, vpcId: string): ec2.IVpc {
  // Explicit subnets need no real AZ list; looking AZs up would make synth call AWS.
  const vpc = ec2.Vpc.fromVpcAttributes(scope, 'Vpc', { vpcId, availabilityZones: Fn.getAzs() });
  Annotations.of(vpc).acknowledgeWarning(
    '@aws-cdk/aws-ec2:vpcAttributeIsListTokenavailabilityZones',
    'The functions name their subnets explicitly; no construct selects subnets of this VPC by zone.',
  );
  return vpc;
}

function vpcNetworkInterfaceStatement(): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'AttachToClusterVpc',
    // What AWSLambdaVPCAccessExecutionRole grants, inline; Lambda manages these ENIs and they have no ARN up front.
    actions: [
      'ec2:CreateNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DeleteNetworkInterface',
      'ec2:AssignPrivateIpAddresses',
      'ec2:UnassignPrivateIpAddresses',
    ],
    resources: ['*'],
  });
}

/** Each resource wildcard the policies use, with why it cannot be narrower. */
const WILDCARD_REASONS: Record<string, string> = {
  '*': 'EC2 Describe calls, the Price List API, sts:DecodeAuthorizationMessage and Lambda VPC ENI management support no resource-level permissions; Describe is limited to the region by condition.',
  'arn:<AWS::Partition>:ssm:<AWS::Region>::parameter/aws/service/eks/optimized-ami/*':
    'Public EKS-optimized AMI alias parameters, read-only; the path depends on version and architecture.',
  'arn:<AWS::Partition>:ssm:<AWS::Region>::parameter/aws/service/bottlerocket/*':
    'Public Bottlerocket AMI alias parameters, read-only; the path depends on version and architecture.',
  'arn:<AWS::Partition>:ssm:<AWS::Region>::parameter/aws/service/ami-windows-latest/*':
    'Public Windows Server AMI alias parameters, read-only; the path depends on the Windows and Kubernetes versions.',
  'arn:<AWS::Partition>:iam::<AWS::AccountId>:instance-profile/karpless/*':
    'Instance profiles Karpless creates for an EC2NodeClass role, under its own path; creating one requires the cluster request tags, changing one the cluster resource tag.',
  ...Object.fromEntries(
    CREATED_RESOURCE_TYPES.map((type) => [
      `arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:${type}/*`,
      `EC2 ${type} ids are unknown before launch; every statement on them requires this cluster's request tags (create, tag) or resource tags (use, terminate, delete).`,
    ]),
  ),
  'arn:<AWS::Partition>:ec2:<AWS::Region>::image/*':
    'The EC2NodeClass selects the AMI at run time; images are used, not created.',
  'arn:<AWS::Partition>:ec2:<AWS::Region>::snapshot/*': 'AMI root snapshots, used (not created) by a launch.',
  'arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:subnet/*':
    'The EC2NodeClass selects subnets at run time; they are used, not created.',
  'arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:security-group/*':
    'The EC2NodeClass selects security groups at run time; they are used, not created.',
  'arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:capacity-reservation/*':
    'The EC2NodeClass selects capacity reservations at run time (capacityReservationSelectorTerms); a launch uses them, never creates them.',
};

function acknowledgeScopedWildcards(policy: iam.Policy): void {
  for (const [resource, reason] of Object.entries(WILDCARD_REASONS)) {
    Validations.of(policy).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
  }
}
