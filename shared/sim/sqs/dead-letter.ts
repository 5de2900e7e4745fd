// The in-memory counterpart of shared/aws/sqs/dead-letter.ts: a poison record goes straight to a MemoryQueue DLQ,
// its body unchanged, with the same attributes (source queue, reason, original message id), the original group and
// the original message id as deduplication id on a FIFO DLQ.
import type { SQSRecord } from 'aws-lambda';
import type { MemoryQueue } from './memory-queue';

export function memoryDeadLetter(dlq: MemoryQueue): (record: SQSRecord, reason: string) => Promise<void> {
  return async (record, reason) => {
    const sourceQueue = record.eventSourceARN.split(':').at(-1) || record.eventSourceARN;
    dlq.send({
      body: record.body,
      ...(dlq.fifo
        ? { groupId: record.attributes.MessageGroupId ?? sourceQueue, deduplicationId: record.messageId }
        : {}),
      attributes: {
        'karpless-source-queue': sourceQueue,
        'karpless-dead-letter-reason': reason,
        'karpless-original-message-id': record.messageId,
      },
    });
  };
}
