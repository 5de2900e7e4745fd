// Wraps message bodies as the SQSEvent Lambda's event source mapping delivers them, so tests and local invokes feed
// handlers exactly what production does (FIFO attributes included).
import type { SQSEvent, SQSRecord } from 'aws-lambda';

export interface SqsEventOptions {
  /** Queue ARN; a name ending in `.fifo` makes FIFO records (MessageGroupId, dedup id, sequence number). */
  queueArn?: string;
  /** FIFO message group; defaults to the body's `cluster` when it has one. */
  groupId?: string;
  /** ApproximateReceiveCount: raise it to simulate redelivery. */
  receiveCount?: number;
  /** Epoch ms of SentTimestamp; defaults to a fixed time so events are deterministic. */
  sentAt?: number;
  region?: string;
  /** SenderId: the sending principal's unique id and session, as SQS records it. */
  senderId?: string;
}

const DEFAULT_QUEUE = 'arn:aws:sqs:us-west-2:111122223333:karpless-demo-events.fifo';
const DEFAULT_SENT_AT = Date.parse('2026-11-21T21:00:00Z');

export function sqsRecord(body: string, index = 0, options: SqsEventOptions = {}): SQSRecord {
  const queueArn = options.queueArn ?? DEFAULT_QUEUE;
  const fifo = queueArn.endsWith('.fifo');
  const sentAt = options.sentAt ?? DEFAULT_SENT_AT;
  const messageId = `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
  const group = options.groupId ?? clusterOf(body) ?? 'default';
  return {
    messageId,
    receiptHandle: `receipt-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: String(sentAt),
      SenderId: options.senderId ?? 'AROAEXAMPLE:karpless',
      ApproximateFirstReceiveTimestamp: String(sentAt + 5),
      ...(fifo && {
        MessageGroupId: group,
        MessageDeduplicationId: `dedup-${index}`,
        SequenceNumber: String(18_849_496_460_467_696_128n + BigInt(index)),
      }),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: options.region ?? queueArn.split(':')[3] ?? 'us-west-2',
  };
}

export function sqsEvent(bodies: readonly string[], options: SqsEventOptions = {}): SQSEvent {
  return { Records: bodies.map((body, i) => sqsRecord(body, i, options)) };
}

function clusterOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null && 'cluster' in parsed && typeof parsed.cluster === 'string') {
      return parsed.cluster;
    }
  } catch {
    // A malformed body still becomes a record: that is how poison messages arrive.
  }
  return undefined;
}
