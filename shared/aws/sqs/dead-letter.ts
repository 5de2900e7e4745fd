// Sends a poison SQS record straight to its queue's dead-letter queue (functions/middleware/sqs-partial-batch.ts
// `DeadLetter`): the body unchanged, and attributes naming the source queue, the reason and the original message id,
// so the message can be inspected and redriven. A FIFO DLQ keeps the original group and deduplicates on the original
// message id, so a retried send after a timeout does not store it twice.
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** SQS caps a message (body and attributes) at 256 KiB; the reason is for people, so a long one is cut. */
const MAX_REASON_CHARS = 4_096;

export const DEAD_LETTER_ATTRIBUTES = {
  sourceQueue: 'karpless-source-queue',
  reason: 'karpless-dead-letter-reason',
  originalMessageId: 'karpless-original-message-id',
} as const;

export function sqsDeadLetter(
  client: SQSClient,
  deadLetterQueueUrl: string,
): (record: SQSRecord, reason: string) => Promise<void> {
  const fifo = deadLetterQueueUrl.endsWith('.fifo');
  return async (record, reason) => {
    const sourceQueue = record.eventSourceARN.split(':').at(-1) || record.eventSourceARN;
    const text = (value: string) => ({ DataType: 'String', StringValue: value });
    await client.send(
      new SendMessageCommand({
        QueueUrl: deadLetterQueueUrl,
        MessageBody: record.body,
        MessageAttributes: {
          [DEAD_LETTER_ATTRIBUTES.sourceQueue]: text(sourceQueue),
          [DEAD_LETTER_ATTRIBUTES.reason]: text(reason.slice(0, MAX_REASON_CHARS) || 'failed validation'),
          [DEAD_LETTER_ATTRIBUTES.originalMessageId]: text(record.messageId),
        },
        ...(fifo
          ? {
              // A record from a standard queue has no group; one group then holds every such poison message.
              MessageGroupId: record.attributes.MessageGroupId ?? sourceQueue,
              MessageDeduplicationId: record.messageId,
            }
          : {}),
      }),
    );
  };
}
