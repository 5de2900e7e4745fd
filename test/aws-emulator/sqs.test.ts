// The queues as the stack configures them (stacks/constructs/queues.ts), on moto_server's SQS, driven through the
// project's senders: FIFO ordering per message group and deduplication, per-message DelaySeconds on the standard
// termination queue, redrive to the DLQ after maxReceiveCount, and the consumer's direct dead-lettering.
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEAD_LETTER_ATTRIBUTES, SqsWorkQueue, sqsDeadLetter } from '../../shared/aws/sqs';
import { type Emulator, emulator } from './emulator';

let aws: Emulator;
let queues = 0;

beforeAll(() => {
  aws = emulator();
});

async function createQueue(
  o: { fifo?: boolean; contentDedup?: boolean; dlq?: { arn: string; max: number }; visibility?: number } = {},
) {
  const name = `karpless-q${++queues}${o.fifo ? '.fifo' : ''}`;
  const attributes: Record<string, string> = { VisibilityTimeout: String(o.visibility ?? 30) };
  if (o.fifo) attributes.FifoQueue = 'true';
  if (o.contentDedup) attributes.ContentBasedDeduplication = 'true';
  if (o.dlq) attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: o.dlq.arn, maxReceiveCount: o.dlq.max });
  const url = (await aws.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes })))
    .QueueUrl as string;
  const arn = (await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })))
    .Attributes?.QueueArn as string;
  return { url, arn };
}

async function receive(url: string, max = 10, extra: { visibility?: number } = {}): Promise<Message[]> {
  const out = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: max,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      ...(extra.visibility !== undefined ? { VisibilityTimeout: extra.visibility } : {}),
    }),
  );
  return out.Messages ?? [];
}

const bodies = (messages: Message[]) => messages.map((m) => m.Body);

describe('SQS on the emulator', () => {
  it('delivers a FIFO group in order and holds the group while a message is in flight', async () => {
    const q = await createQueue({ fifo: true, contentDedup: true });
    const queue = new SqsWorkQueue(aws.sqs, q.url);
    for (const body of ['a1', 'a2', 'a3']) await queue.send({ body, groupId: 'cluster-a', deduplicationId: body });
    await queue.send({ body: 'b1', groupId: 'cluster-b', deduplicationId: 'b1' });
    const first = await receive(q.url, 1);
    expect(bodies(first)).toEqual(['a1']);
    // cluster-a is locked while a1 is in flight; cluster-b is not.
    expect(bodies(await receive(q.url, 10))).toEqual(['b1']);
    await aws.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: q.url,
        ReceiptHandle: first[0]?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    expect(bodies(await receive(q.url, 10))).toEqual(['a1', 'a2', 'a3']);
  });

  it('drops a FIFO duplicate by explicit deduplication id, and by content when none is given', async () => {
    const q = await createQueue({ fifo: true, contentDedup: true });
    const queue = new SqsWorkQueue(aws.sqs, q.url);
    await queue.send({ body: 'pods v1', groupId: 'c', deduplicationId: 'batch-1' });
    await queue.send({ body: 'pods v1 again', groupId: 'c', deduplicationId: 'batch-1' });
    await queue.send({ body: 'sweep', groupId: 'c' });
    await queue.send({ body: 'sweep', groupId: 'c' });
    expect(bodies(await receive(q.url))).toEqual(['pods v1', 'sweep']);
  });

  it('holds a standard-queue message for its DelaySeconds', async () => {
    const q = await createQueue();
    const queue = new SqsWorkQueue(aws.sqs, q.url);
    await queue.send({ body: 'later', groupId: 'ignored', delaySeconds: 2 });
    await queue.send({ body: 'now', groupId: 'ignored' });
    expect(bodies(await receive(q.url))).toEqual(['now']);
    await new Promise((r) => setTimeout(r, 2_100));
    expect(bodies(await receive(q.url))).toEqual(['later']);
  });

  it('redrives a message to the DLQ once it has been received maxReceiveCount times', async () => {
    const dlq = await createQueue();
    // The interruption queue's maxReceiveCount (stacks/constructs/queues.ts MAX_RECEIVE_COUNT); the CDK is not
    // imported here because it costs seconds per file.
    const max = 3;
    const q = await createQueue({ dlq: { arn: dlq.arn, max }, visibility: 0 });
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'poison' }));
    // Received and never deleted, as a failing consumer does; a visibility of 0 makes it visible again at once.
    for (let i = 1; i <= max; i++) {
      const got = await receive(q.url, 1, { visibility: 0 });
      expect(got[0]?.Attributes?.ApproximateReceiveCount).toBe(String(i));
    }
    expect(await receive(q.url, 1, { visibility: 0 })).toEqual([]);
    const moved = await receive(dlq.url);
    expect(bodies(moved)).toEqual(['poison']);
  });

  it('sends a poison record straight to a FIFO DLQ in its group, deduplicated by the original message id', async () => {
    const dlq = await createQueue({ fifo: true });
    const record = {
      messageId: 'm-1',
      body: '{"kind":"nonsense"}',
      eventSourceARN: `arn:aws:sqs:us-east-1:${aws.account}:karpless-events.fifo`,
      attributes: { MessageGroupId: 'demo' },
    } as unknown as SQSRecord;
    const send = sqsDeadLetter(aws.sqs, dlq.url);
    await send(record, 'failed validation: kind');
    await send(record, 'failed validation: kind');
    const got = await receive(dlq.url);
    expect(bodies(got)).toEqual([record.body]);
    expect(got[0]?.Attributes?.MessageGroupId).toBe('demo');
    expect(got[0]?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTES.sourceQueue]?.StringValue).toBe('karpless-events.fifo');
    expect(got[0]?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTES.reason]?.StringValue).toBe('failed validation: kind');
    expect(got[0]?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTES.originalMessageId]?.StringValue).toBe('m-1');
  });
});
