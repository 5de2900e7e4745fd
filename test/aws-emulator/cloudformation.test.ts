// A smoke deploy of the synthesized cluster stack into moto_server's CloudFormation, then a look at what it made
// through the services' own APIs, and one write through the project's adapters into the deployed queue and table.
// The stack is the product's, adapted only by a test-only aspect (stacks/testing/moto-compat.ts).
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, ListQueuesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { Aspects } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { SqsWorkQueue } from '../../shared/aws/sqs';
import { ClusterStack } from '../../stacks/cluster-stack';
import { MotoCompatibility } from '../../stacks/testing/moto-compat';
import { clusterConfig, STUB_ENTRY, testApp } from '../../stacks/testing/synth';
import { nodeClaim } from '../../testkit/builders';
import { CloudFormationQuery, members, tag } from './cloudformation';
import { type Emulator, emulator } from './emulator';

/** Resource types moto 5.2.1 accepts in a template but does not create (it lists them without a type). */
const MOTO_CANNOT_CREATE = [
  'AWS::CloudWatch::Alarm',
  'AWS::EKS::AccessEntry',
  'AWS::EKS::PodIdentityAssociation',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::SNS::Subscription',
  'AWS::SNS::TopicPolicy',
  'AWS::SQS::QueuePolicy',
  'AWS::Scheduler::Schedule',
];

let aws: Emulator;
let cfn: CloudFormationQuery;
let stackName: string;
let template: { Resources: Record<string, { Type: string }> };
let listed: Record<string, string | undefined>[];
let outputs: Record<string, string>;

beforeAll(async () => {
  aws = emulator({ region: 'us-west-2' });
  cfn = new CloudFormationQuery(aws);
  // Synthesized for the emulator account, so the account in the template's ARNs is the one moto serves.
  const stack = new ClusterStack(testApp(), {
    config: clusterConfig({ account: aws.account }),
    entryOverride: STUB_ENTRY,
  });
  stackName = stack.stackName;
  Aspects.of(stack).add(new MotoCompatibility());
  template = Template.fromStack(stack).toJSON() as typeof template;
  // What `cdk bootstrap` leaves in an account, read by the template's BootstrapVersion parameter.
  await aws.ssm.send(
    new PutParameterCommand({ Name: '/cdk-bootstrap/hnb659fds/version', Value: '30', Type: 'String' }),
  );
  await cfn.call('CreateStack', {
    StackName: stackName,
    TemplateBody: JSON.stringify(template),
    'Capabilities.member.1': 'CAPABILITY_NAMED_IAM',
  });
  listed = members(await cfn.call('ListStackResources', { StackName: stackName }), [
    'LogicalResourceId',
    'PhysicalResourceId',
    'ResourceType',
    'ResourceStatus',
  ]);
  const described = await cfn.call('DescribeStacks', { StackName: stackName });
  outputs = Object.fromEntries(
    members(described, ['OutputKey', 'OutputValue'])
      .filter((o) => o.OutputKey)
      .map((o) => [o.OutputKey as string, o.OutputValue ?? '']),
  );
}, 120_000);

const physical = (logicalPrefix: string) =>
  listed.find((r) => r.LogicalResourceId?.startsWith(logicalPrefix))?.PhysicalResourceId as string;

async function queueAttributes(url: string) {
  const out = await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
  return out.Attributes ?? {};
}

describe('the cluster stack deployed on the emulator', () => {
  it('reaches CREATE_COMPLETE, creating every resource but the types moto cannot', async () => {
    expect(tag(await cfn.call('DescribeStacks', { StackName: stackName }), 'StackStatus')).toBe('CREATE_COMPLETE');
    const created = new Set(listed.filter((r) => r.ResourceType).map((r) => r.LogicalResourceId));
    const missing = Object.entries(template.Resources).filter(([id]) => !created.has(id));
    expect([...new Set(missing.map(([, r]) => r.Type))].sort()).toEqual(MOTO_CANNOT_CREATE);
    const types = new Set(listed.map((r) => r.ResourceType));
    for (const t of [
      'AWS::Lambda::Function',
      'AWS::Lambda::EventSourceMapping',
      'AWS::Events::Rule',
      'AWS::IAM::Role',
    ]) {
      expect(types).toContain(t);
    }
    expect(listed.every((r) => r.ResourceStatus === 'CREATE_COMPLETE')).toBe(true);
  });

  it('creates the seven queues with FIFO, deduplication, visibility and redrive as configured', async () => {
    // Three queues, their three DLQs, and the queue that keeps failed scheduled work (undelivered ticks, GC runs).
    const urls = (await aws.sqs.send(new ListQueuesCommand({}))).QueueUrls ?? [];
    expect(urls).toHaveLength(7);
    const events = await queueAttributes(outputs.EventsQueueUrl as string);
    expect(events).toMatchObject({ FifoQueue: 'true', ContentBasedDeduplication: 'true', VisibilityTimeout: '270' });
    const eventsDlq = await queueAttributes(physical('QueuesEventsDlq'));
    expect(JSON.parse(events.RedrivePolicy as string)).toEqual({
      deadLetterTargetArn: eventsDlq.QueueArn,
      maxReceiveCount: 5,
    });
    const interruption = await queueAttributes(physical('QueuesInterruptionC'));
    expect(interruption.FifoQueue).toBeUndefined();
    expect(JSON.parse(interruption.RedrivePolicy as string).maxReceiveCount).toBe(3);
    const termination = await queueAttributes(physical('QueuesTermination2'));
    expect(JSON.parse(termination.RedrivePolicy as string).maxReceiveCount).toBe(10);
  });

  it('creates the state table with its keys, instance-id index and TTL attribute', async () => {
    const table = await aws.dynamo.send(new DescribeTableCommand({ TableName: outputs.TableName }));
    expect(table.Table?.KeySchema?.map((k) => `${k.AttributeName}:${k.KeyType}`)).toEqual(['PK:HASH', 'SK:RANGE']);
    expect(table.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['byInstanceId']);
    // moto 5.2.1 creates the table from CloudFormation without its TimeToLiveSpecification (DescribeTimeToLive
    // answers DISABLED), so the template's request is what can be checked.
    const [, resource] = Object.entries(template.Resources).find(([id]) => id.startsWith('StateTable')) ?? [];
    expect((resource as { Properties?: Record<string, unknown> })?.Properties?.TimeToLiveSpecification).toEqual({
      AttributeName: 'expiresAt',
      Enabled: true,
    });
  });

  it('serves the project adapters: a claim in the deployed table, a message on the deployed FIFO queue', async () => {
    const store = new DynamoNodeClaimStore({
      tableName: outputs.TableName as string,
      cluster: 'demo',
      client: aws.documents,
    });
    const claim = await store.create(nodeClaim({ cluster: 'demo' }));
    expect(await store.get(claim.name)).toEqual(claim);
    await new SqsWorkQueue(aws.sqs, outputs.EventsQueueUrl as string).send({
      body: '{"kind":"Sweep"}',
      groupId: 'demo',
    });
    const got = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: outputs.EventsQueueUrl }));
    expect(got.Messages?.map((m) => m.Body)).toEqual(['{"kind":"Sweep"}']);
  });
});
