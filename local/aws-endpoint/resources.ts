// The AWS side of `karpless dev --aws-endpoint`: real SDK clients pointed at one endpoint (moto_server, LocalStack,
// or anything that speaks the AWS APIs), with region and credentials from the usual AWS environment variables, and
// the table and queues the stack would create, created here when absent. The queues are configured as
// stacks/constructs/queues.ts configures them (FIFO cluster queue with content-based deduplication, standard
// interruption and termination queues, each with its DLQ and maxReceiveCount).
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient } from '@aws-sdk/client-iam';
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput } from '../../shared/aws/dynamo/schema';
import { MAX_RECEIVE, VISIBILITY_SECONDS } from '../local-pipeline';

export interface EndpointClients {
  endpoint: string;
  region: string;
  ec2: EC2Client;
  ssm: SSMClient;
  iam: IAMClient;
  sqs: SQSClient;
  dynamo: DynamoDBClient;
  documents: DynamoDBDocumentClient;
}

export interface EndpointResources {
  tableName: string;
  queues: Record<
    'events' | 'eventsDlq' | 'interruption' | 'interruptionDlq' | 'termination' | 'terminationDlq',
    string
  >;
  /** What this run created (absent before). */
  created: string[];
}

/**
 * Clients for `endpoint`. The region is AWS_REGION or AWS_DEFAULT_REGION; credentials are whatever the SDK's
 * default chain finds (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, ...). Throws naming what is missing.
 */
export function endpointClients(endpoint: string, env: NodeJS.ProcessEnv = process.env): EndpointClients {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`--aws-endpoint: "${endpoint}" is not a URL such as http://127.0.0.1:5000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`--aws-endpoint: "${endpoint}" must be an http:// or https:// URL`);
  }
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (!region) throw new Error('--aws-endpoint: set AWS_REGION (or AWS_DEFAULT_REGION), e.g. AWS_REGION=us-east-1');
  if (!env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE) {
    throw new Error(
      '--aws-endpoint: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (any values for moto_server) or AWS_PROFILE',
    );
  }
  const config = { endpoint, region, maxAttempts: 3 };
  const dynamo = new DynamoDBClient(config);
  return {
    endpoint,
    region,
    ec2: new EC2Client(config),
    ssm: new SSMClient(config),
    iam: new IAMClient(config),
    sqs: new SQSClient(config),
    dynamo,
    documents: DynamoDBDocumentClient.from(dynamo, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
  };
}

const isName = (err: unknown, ...names: string[]) => names.includes((err as { name?: string })?.name ?? '');

/** The table `karpless-<cluster>` and the six queues `karpless-<cluster>-*`, created when absent. */
export async function ensureResources(c: EndpointClients, cluster: string): Promise<EndpointResources> {
  const created: string[] = [];
  const tableName = `karpless-${cluster}`;
  try {
    await c.dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (err) {
    if (!isName(err, 'ResourceNotFoundException')) throw err;
    await c.dynamo.send(new CreateTableCommand(createTableInput(tableName)));
    created.push(`table ${tableName}`);
  }
  const queue = async (name: string, attributes: Record<string, string>, dlq?: { url: string; max: number }) => {
    try {
      return (await c.sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;
    } catch (err) {
      if (!isName(err, 'QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue')) throw err;
    }
    const redrive = dlq
      ? {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: (
              await c.sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.url, AttributeNames: ['QueueArn'] }))
            ).Attributes?.QueueArn,
            maxReceiveCount: dlq.max,
          }),
        }
      : {};
    const out = await c.sqs.send(
      new CreateQueueCommand({ QueueName: name, Attributes: { ...attributes, ...redrive } }),
    );
    created.push(`queue ${name}`);
    return out.QueueUrl as string;
  };
  const prefix = `karpless-${cluster}`;
  const fifo = { FifoQueue: 'true' };
  const eventsDlq = await queue(`${prefix}-events-dlq.fifo`, fifo);
  const events = await queue(
    `${prefix}-events.fifo`,
    { ...fifo, ContentBasedDeduplication: 'true', VisibilityTimeout: String(VISIBILITY_SECONDS.events) },
    { url: eventsDlq, max: MAX_RECEIVE.events },
  );
  const interruptionDlq = await queue(`${prefix}-interruption-dlq`, {});
  const interruption = await queue(
    `${prefix}-interruption`,
    { VisibilityTimeout: String(VISIBILITY_SECONDS.interruption) },
    { url: interruptionDlq, max: MAX_RECEIVE.interruption },
  );
  const terminationDlq = await queue(`${prefix}-termination-dlq`, {});
  const termination = await queue(
    `${prefix}-termination`,
    { VisibilityTimeout: String(VISIBILITY_SECONDS.termination) },
    { url: terminationDlq, max: MAX_RECEIVE.termination },
  );
  return {
    tableName,
    queues: { events, eventsDlq, interruption, interruptionDlq, termination, terminationDlq },
    created,
  };
}
