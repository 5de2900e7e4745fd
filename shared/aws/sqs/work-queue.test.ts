// aws-sdk-client-mock: the assertion is on the exact SendMessage input, which an emulator does not expose.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqsWorkQueue } from './work-queue';

const sqs = mockClient(SQSClient);
beforeEach(() => sqs.reset());

const QUEUE_URL = 'https://sqs.us-west-2.amazonaws.com/111122223333/karpless-demo-events.fifo';

describe('SqsWorkQueue', () => {
  it('sends FIFO messages with group and deduplication id and no per-message delay', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    const queue = new SqsWorkQueue(new SQSClient({ region: 'us-west-2' }), QUEUE_URL);
    await queue.send({ body: '{"v":1}', groupId: 'demo', deduplicationId: 'replan-1', delaySeconds: 30 });
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
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
