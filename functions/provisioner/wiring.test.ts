import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureOutput } from '../../testkit/function-bed';
import { createObservability } from '../middleware';
import { metricFor, readEnv, SqsWorkQueue } from './wiring';

const sqs = mockClient(SQSClient);
beforeEach(() => sqs.reset());
afterEach(() => vi.restoreAllMocks());

const BASE = {
  CLUSTER_NAME: 'demo',
  TABLE_NAME: 'karpless-demo',
  QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-events.fifo',
  AWS_REGION: 'us-west-2',
};

describe('readEnv', () => {
  it('reads the stack-provided variables with defaults for the optional ones', () => {
    const env = readEnv({
      ...BASE,
      TERMINATION_QUEUE_URL: 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-termination',
      KUBERNETES_VERSION: '1.31',
      REBALANCE: 'interrupt',
      BIND_PODS: 'false',
    });
    expect(env).toMatchObject({
      cluster: 'demo',
      region: 'us-west-2',
      kubernetesVersion: '1.31',
      config: { rebalance: 'interrupt', bindPods: false, solveTimeoutMs: 60_000, iceTtlMs: 180_000 },
    });
    expect(readEnv(BASE).config).toMatchObject({ rebalance: 'record', bindPods: true });
  });

  it("reads the consumed queue's DLQ from DLQ_URL, and leaves it unset without one", () => {
    const url = 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-events-dlq.fifo';
    expect(readEnv({ ...BASE, DLQ_URL: url }).deadLetterQueueUrl).toBe(url);
    expect(readEnv(BASE).deadLetterQueueUrl).toBeUndefined();
  });

  it('names every missing or malformed variable', () => {
    expect(() => readEnv({ BIND_PODS: 'yes', REBALANCE: 'ignore' })).toThrow(
      /CLUSTER_NAME is required.*TABLE_NAME is required.*QUEUE_URL is required.*AWS_REGION is required.*BIND_PODS: "yes".*REBALANCE: "ignore"/,
    );
  });
});

describe('SqsWorkQueue', () => {
  it('sends FIFO messages with group and deduplication id and no per-message delay', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    const queue = new SqsWorkQueue(new SQSClient({ region: 'us-west-2' }), BASE.QUEUE_URL);
    await queue.send({ body: '{"v":1}', groupId: 'demo', deduplicationId: 'replan-1', delaySeconds: 30 });
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: BASE.QUEUE_URL,
      MessageBody: '{"v":1}',
      MessageGroupId: 'demo',
      MessageDeduplicationId: 'replan-1',
    });
  });

  it('sends standard-queue messages with their delay and no group', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm2' });
    const url = 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-termination';
    const queue = new SqsWorkQueue(new SQSClient({ region: 'us-west-2' }), url);
    await queue.send({ body: '{"v":1}', groupId: 'demo', delaySeconds: 15 });
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: url,
      MessageBody: '{"v":1}',
      DelaySeconds: 15,
    });
  });
});

describe('metricFor', () => {
  it('adds plain metrics to the invocation blob and emits dimensioned ones on their own', () => {
    const lines = captureOutput();
    const { metrics } = createObservability({ cluster: 'demo', service: 'provisioner' });
    const metric = metricFor(metrics);
    metric('Launches', 2, 'Count');
    metric('Nodes', 3, 'Count', { nodePool: 'default' });
    metrics.publishStoredMetrics();
    const out = lines();
    expect(out.find((l) => 'Nodes' in l)).toMatchObject({ Nodes: 3, nodePool: 'default', cluster: 'demo' });
    expect(out.find((l) => 'Launches' in l)).toMatchObject({ Launches: 2, cluster: 'demo' });
  });
});
