// SqsWorkQueue against moto_server: what arrives on a FIFO and on a standard queue, read back with SQS's own
// message attributes (group, deduplication id) and queue counters (delayed messages).
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, emulator } from '../../../test/aws-emulator/emulator';
import { SqsWorkQueue } from './work-queue';

let aws: Emulator;
beforeAll(() => {
  aws = emulator({ region: 'us-west-2' });
});

const create = async (name: string, attributes: Record<string, string> = {}) =>
  (await aws.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl as string;

const counters = async (url: string) =>
  (
    await aws.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
      }),
    )
  ).Attributes;

describe('SqsWorkQueue on the emulator', () => {
  it('sends FIFO messages with group and deduplication id and no per-message delay', async () => {
    // A FIFO queue takes no per-message DelaySeconds (SQS refuses it); the message is there at once.
    const url = await create('karpless-demo-events.fifo', { FifoQueue: 'true' });
    await new SqsWorkQueue(aws.sqs, url).send({
      body: '{"v":1}',
      groupId: 'demo',
      deduplicationId: 'replan-1',
      delaySeconds: 30,
    });
    const got = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MessageSystemAttributeNames: ['All'], WaitTimeSeconds: 0 }),
    );
    expect(got.Messages?.map((m) => m.Body)).toEqual(['{"v":1}']);
    expect(got.Messages?.[0]?.Attributes).toMatchObject({
      MessageGroupId: 'demo',
      MessageDeduplicationId: 'replan-1',
    });
  });

  it('sends standard-queue messages with their delay and no group', async () => {
    const url = await create('karpless-demo-termination');
    await new SqsWorkQueue(aws.sqs, url).send({ body: '{"v":1}', groupId: 'demo', delaySeconds: 15 });
    expect(await counters(url)).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesDelayed: '1',
    });
    await new SqsWorkQueue(aws.sqs, url).send({ body: '{"v":2}', groupId: 'demo' });
    const got = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MessageSystemAttributeNames: ['All'], WaitTimeSeconds: 0 }),
    );
    expect(got.Messages?.map((m) => m.Body)).toEqual(['{"v":2}']);
    expect(got.Messages?.[0]?.Attributes?.MessageGroupId).toBeUndefined();
  });
});
