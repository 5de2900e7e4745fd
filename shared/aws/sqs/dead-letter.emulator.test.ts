// sqsDeadLetter against moto_server: the record lands in the DLQ with its body, group, deduplication id and the
// karpless-* attributes, read back as SQS delivers them.
import { CreateQueueCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqsEvent } from '../../../events/sqs';
import { type Emulator, emulator } from '../../../test/aws-emulator/emulator';
import { sqsDeadLetter } from './dead-letter';

let aws: Emulator;
beforeAll(() => {
  aws = emulator({ region: 'us-west-2' });
});

const body = '{"v":1,"cluster":"demo","kind":"Nope"}';

const create = async (name: string, attributes: Record<string, string> = {}) =>
  (await aws.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl as string;

async function receive(url: string): Promise<Message[]> {
  const out = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
      MaxNumberOfMessages: 10,
    }),
  );
  return out.Messages ?? [];
}

const attributes = (m: Message | undefined) =>
  Object.fromEntries(Object.entries(m?.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue]));

describe('sqsDeadLetter on the emulator', () => {
  it('sends to a FIFO DLQ with the original group, the message id as deduplication id, and the reason', async () => {
    const url = await create('karpless-demo-events-dlq.fifo', { FifoQueue: 'true' });
    const record = sqsEvent([body], { queueArn: 'arn:aws:sqs:us-west-2:1:karpless-demo-events.fifo' }).Records[0]!;
    await sqsDeadLetter(aws.sqs, url)(record, 'kind: unknown kind "Nope"');
    // A second dead-lettering of the same record (a retried batch) is deduplicated by its message id.
    await sqsDeadLetter(aws.sqs, url)(record, 'kind: unknown kind "Nope"');
    const got = await receive(url);
    expect(got.map((m) => m.Body)).toEqual([body]);
    expect(got[0]?.Attributes).toMatchObject({ MessageGroupId: 'demo', MessageDeduplicationId: record.messageId });
    expect(attributes(got[0])).toEqual({
      'karpless-source-queue': 'karpless-demo-events.fifo',
      'karpless-dead-letter-reason': 'kind: unknown kind "Nope"',
      'karpless-original-message-id': record.messageId,
    });
  });

  it('sends to a standard DLQ without group or deduplication id, and cuts a very long reason', async () => {
    const url = await create('karpless-demo-interruption-dlq');
    const record = sqsEvent(['not json'], { queueArn: 'arn:aws:sqs:us-west-2:1:karpless-demo-interruption' })
      .Records[0]!;
    await sqsDeadLetter(aws.sqs, url)(record, 'x'.repeat(10_000));
    const [m] = await receive(url);
    expect(m?.Body).toBe('not json');
    expect(m?.Attributes?.MessageGroupId).toBeUndefined();
    expect(m?.Attributes?.MessageDeduplicationId).toBeUndefined();
    expect(attributes(m)['karpless-dead-letter-reason']).toHaveLength(4_096);
    expect(attributes(m)['karpless-source-queue']).toBe('karpless-demo-interruption');
  });

  it('rejects when SendMessage fails, so the caller reports the record instead', async () => {
    const record = sqsEvent([body]).Records[0]!;
    const missing = `${aws.endpoint}/${aws.account}/karpless-demo-no-such-dlq.fifo`;
    await expect(sqsDeadLetter(aws.sqs, missing)(record, 'bad')).rejects.toThrow(/does not exist|NonExistentQueue/i);
  });
});
