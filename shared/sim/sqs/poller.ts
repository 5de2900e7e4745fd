// The Lambda event source mapping for an in-memory queue: receives a batch, hands it to the handler as a real
// SQSEvent, deletes the records that succeeded and leaves the ones named in `batchItemFailures` in flight until
// their visibility timeout ends (then SQS redelivers them, or redrives them to the DLQ). A handler that throws is a
// failed invocation: nothing is deleted, the whole batch comes back.
import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { MemoryQueue, ReceivedMessage } from './memory-queue';

/** Resolves to an SQSBatchResponse (anything else counts as no failures, as Lambda treats an empty response). */
export type SqsHandler = (event: SQSEvent) => Promise<unknown>;

export interface PollResult {
  received: number;
  deleted: number;
  /** Message ids reported in batchItemFailures (or the whole batch when the handler threw). */
  failed: string[];
  /** The handler's error, when the invocation itself failed. */
  error?: unknown;
  /** Wall-clock time spent in the handler. */
  handlerMs: number;
}

export interface PollerOptions {
  batchSize?: number;
  region?: string;
}

export class QueuePoller {
  private readonly batchSize: number;

  constructor(
    readonly queue: MemoryQueue,
    private readonly handler: SqsHandler,
    private readonly options: PollerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 10;
  }

  /** One receive and invocation; `received` is 0 when nothing was visible. */
  async pollOnce(): Promise<PollResult> {
    const batch = this.queue.receive(this.batchSize);
    if (batch.length === 0) return { received: 0, deleted: 0, failed: [], handlerMs: 0 };
    const event: SQSEvent = { Records: batch.map((m) => toRecord(m, this.queue, this.options.region)) };
    const started = performance.now();
    let response: unknown;
    try {
      response = await this.handler(event);
    } catch (error) {
      return {
        received: batch.length,
        deleted: 0,
        failed: batch.map((m) => m.messageId),
        error,
        handlerMs: performance.now() - started,
      };
    }
    const handlerMs = performance.now() - started;
    const failed = new Set(failuresOf(response));
    let deleted = 0;
    for (const m of batch) {
      if (failed.has(m.messageId)) continue;
      if (this.queue.delete(m.receiptHandle)) deleted++;
    }
    return { received: batch.length, deleted, failed: [...failed], handlerMs };
  }

  /** Polls until a receive comes back empty or `maxPolls` invocations ran. */
  async drain(maxPolls = 100): Promise<PollResult[]> {
    const results: PollResult[] = [];
    for (let i = 0; i < maxPolls; i++) {
      const r = await this.pollOnce();
      if (r.received === 0) break;
      results.push(r);
    }
    return results;
  }
}

export function toRecord(
  m: ReceivedMessage,
  queue: MemoryQueue,
  region = queue.arn.split(':')[3] ?? 'us-west-2',
): SQSRecord {
  return {
    messageId: m.messageId,
    receiptHandle: m.receiptHandle,
    body: m.body,
    attributes: {
      ApproximateReceiveCount: String(m.receiveCount),
      SentTimestamp: String(m.sentAt),
      SenderId: 'AROAEXAMPLE:karpless-local',
      ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt),
      ...(m.groupId !== undefined && { MessageGroupId: m.groupId }),
      ...(m.deduplicationId !== undefined && { MessageDeduplicationId: m.deduplicationId }),
      ...(m.sequenceNumber !== undefined && { SequenceNumber: m.sequenceNumber }),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(m.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: region,
  };
}

function failuresOf(response: unknown): string[] {
  const failures = (response as Partial<SQSBatchResponse> | undefined)?.batchItemFailures;
  return Array.isArray(failures) ? failures.map((f) => f.itemIdentifier) : [];
}
