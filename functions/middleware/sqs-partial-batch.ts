// Turns a per-record handler into an SQS batch handler that reports partial failures: a record that throws is
// returned in `batchItemFailures` and redelivered, the rest of the batch succeeds. A record that fails validation is
// a poison message: it is logged with the reason and reported too, so SQS moves it to the DLQ after the queue's
// maxReceiveCount instead of it blocking or crashing the batch.
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ValidationError } from '../../shared/errors';

export interface BatchLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type CountFn = (name: 'PoisonMessages' | 'BatchItemFailures', value: number) => void;

export interface RecordInfo {
  record: SQSRecord;
  /** Names the record in errors and logs: `SQS message <id> (<queue>)`. */
  source: string;
  receiveCount: number;
  context: Context;
}

export interface SqsPartialBatchOptions<T> {
  /** Validates the body; a ValidationError marks the record as poison. */
  parse: (body: string, options: { source: string }) => T;
  log?: BatchLog;
  count?: CountFn;
  /** Stop starting new records when less than this remains, and report the rest for redelivery. */
  reserveMs?: number;
}

export type RecordHandler<T> = (message: T, info: RecordInfo) => Promise<void>;

const silent: BatchLog = { info() {}, warn() {}, error() {} };

export function sqsPartialBatch<T>(
  handle: RecordHandler<T>,
  options: SqsPartialBatchOptions<T>,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  const log = options.log ?? silent;
  const reserveMs = options.reserveMs ?? 5_000;
  return async (event, context) => {
    const failures: string[] = [];
    // FIFO order within a group must hold: after a failure, later records of that group are not processed.
    const blockedGroups = new Set<string>();
    let outOfTime = false;
    for (const record of event.Records) {
      const group = record.attributes.MessageGroupId;
      if (outOfTime || (group !== undefined && blockedGroups.has(group))) {
        failures.push(record.messageId);
        continue;
      }
      if (context.getRemainingTimeInMillis() < reserveMs) {
        outOfTime = true;
        log.warn('not enough time left for the rest of the batch; returning it for redelivery', {
          remainingMs: context.getRemainingTimeInMillis(),
        });
        failures.push(record.messageId);
        continue;
      }
      const info = recordInfo(record, context);
      const ok = await processRecord(handle, options, log, info);
      if (!ok) {
        failures.push(record.messageId);
        if (group !== undefined) blockedGroups.add(group);
      }
    }
    if (failures.length > 0) options.count?.('BatchItemFailures', failures.length);
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

async function processRecord<T>(
  handle: RecordHandler<T>,
  options: SqsPartialBatchOptions<T>,
  log: BatchLog,
  info: RecordInfo,
): Promise<boolean> {
  let message: T;
  try {
    message = options.parse(info.record.body, { source: info.source });
  } catch (error) {
    const problems = error instanceof ValidationError ? error.problems : [String(error)];
    options.count?.('PoisonMessages', 1);
    log.error('poison message: failed validation; it will reach the DLQ after maxReceiveCount', {
      messageId: info.record.messageId,
      receiveCount: info.receiveCount,
      problems,
    });
    return false;
  }
  try {
    await handle(message, info);
    return true;
  } catch (error) {
    log.error('record failed; reported for redelivery', {
      messageId: info.record.messageId,
      receiveCount: info.receiveCount,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
    return false;
  }
}

function recordInfo(record: SQSRecord, context: Context): RecordInfo {
  const queue = record.eventSourceARN.split(':').at(-1) ?? record.eventSourceARN;
  return {
    record,
    source: `SQS message ${record.messageId} (${queue})`,
    receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
    context,
  };
}
