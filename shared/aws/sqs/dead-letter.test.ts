import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { sqsEvent } from '../../../events/sqs';
import { sqsDeadLetter } from './dead-letter';

const sqs = mockClient(SQSClient);
beforeEach(() => sqs.reset());

const body = '{"v":1,"cluster":"demo","kind":"Nope"}';

describe('sqsDeadLetter', () => {
  it('sends to a FIFO DLQ with the original group, the message id as deduplication id, and the reason', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'dlq-1' });
    const record = sqsEvent([body], { queueArn: 'arn:aws:sqs:us-west-2:1:karpless-demo-events.fifo' }).Records[0]!;
    const url = 'https://sqs.us-west-2.amazonaws.com/1/karpless-demo-events-dlq.fifo';
    await sqsDeadLetter(new SQSClient({ region: 'us-west-2' }), url)(record, 'kind: unknown kind "Nope"');
    const calls = sqs.commandCalls(SendMessageCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      QueueUrl: url,
      MessageBody: body,
      MessageGroupId: 'demo',
      MessageDeduplicationId: record.messageId,
      MessageAttributes: {
        'karpless-source-queue': { DataType: 'String', StringValue: 'karpless-demo-events.fifo' },
        'karpless-dead-letter-reason': { DataType: 'String', StringValue: 'kind: unknown kind "Nope"' },
        'karpless-original-message-id': { DataType: 'String', StringValue: record.messageId },
      },
    });
  });

  it('sends to a standard DLQ without group or deduplication id, and cuts a very long reason', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'dlq-2' });
    const record = sqsEvent(['not json'], { queueArn: 'arn:aws:sqs:us-west-2:1:karpless-demo-interruption' })
      .Records[0]!;
    const url = 'https://sqs.us-west-2.amazonaws.com/1/karpless-demo-interruption-dlq';
    await sqsDeadLetter(new SQSClient({ region: 'us-west-2' }), url)(record, 'x'.repeat(10_000));
    const input = sqs.commandCalls(SendMessageCommand)[0]?.args[0].input;
    expect(input?.MessageGroupId).toBeUndefined();
    expect(input?.MessageDeduplicationId).toBeUndefined();
    expect(input?.MessageBody).toBe('not json');
    expect(input?.MessageAttributes?.['karpless-dead-letter-reason']?.StringValue).toHaveLength(4_096);
    expect(input?.MessageAttributes?.['karpless-source-queue']?.StringValue).toBe('karpless-demo-interruption');
  });

  it('rejects when SendMessage fails, so the caller reports the record instead', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('AccessDenied'));
    const record = sqsEvent([body]).Records[0]!;
    const send = sqsDeadLetter(new SQSClient({ region: 'us-west-2' }), 'https://sqs/1/dlq.fifo');
    await expect(send(record, 'bad')).rejects.toThrow('AccessDenied');
  });
});
