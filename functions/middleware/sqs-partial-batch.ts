// Turns a per-record handler into an SQS batch handler that reports partial failures: a record that throws is
// returned in `batchItemFailures` and redelivered, the rest of the batch succeeds. A record that fails validation is
// a poison message: retrying cannot fix it, so it is sent straight to the queue's DLQ through `deadLetter` and
// acknowledged, and the rest of the batch (and of its FIFO group) proceeds at once. Only when no dead-letter port is
// wired, or sending to it fails, is the poison reported like any failure, so SQS redrives it after maxReceiveCount:
// it is never lost.
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ValidationError } from '../../shared/errors';
import type { MetricName } from '../../shared/metrics';

export interface BatchLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type CountFn = (name: Extract<MetricName, 'PoisonMessages' | 'BatchItemFailures'>, value: number) => void;

/** Sends a poison record to its queue's dead-letter queue, with the reason it failed validation. */
export type DeadLetter = (record: SQSRecord, reason: string) => Promise<void>;

export interface RecordInfo {
  record: SQSRecord;
  /** Names the record in errors and logs: `SQS message <id> (<queue>)`. */
  source: string;
  receiveCount: number;
  context: Context;
  /** Set when the SQS envelope itself was malformed: the record is poison whatever its body says. */
  envelopeProblem?: string;
}

/** What a parser learns of a record besides its body: how to name it, who sent it (SQS's SenderId), and in which
 * FIFO message group (undefined on a standard queue). */
export interface ParseContext {
  source: string;
  senderId: string | undefined;
  groupId: string | undefined;
}

export interface SqsPartialBatchOptions<T> {
  /** Validates the body; a ValidationError marks the record as poison. */
  parse: (body: string, options: ParseContext) => T;
  log?: BatchLog;
  count?: CountFn;
  /** Where poison records go at once; without it they are reported and reach the DLQ after maxReceiveCount. */
  deadLetter?: DeadLetter;
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
    const records = recordsOf(event, log, options);
    for (const record of records) {
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
    if (info.envelopeProblem) throw new ValidationError([`${info.source}: ${info.envelopeProblem}`]);
    const { SenderId: senderId, MessageGroupId: groupId } = info.record.attributes;
    message = options.parse(info.record.body, { source: info.source, senderId, groupId });
  } catch (error) {
    const problems = error instanceof ValidationError ? error.problems : [String(error)];
    options.count?.('PoisonMessages', 1);
    return deadLetterPoison(options.deadLetter, log, info, problems);
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

/** True when the poison record went to the DLQ (so it is acknowledged); false reports it for SQS to redrive. */
async function deadLetterPoison(
  deadLetter: DeadLetter | undefined,
  log: BatchLog,
  info: RecordInfo,
  problems: readonly string[],
): Promise<boolean> {
  const fields = { messageId: info.record.messageId, receiveCount: info.receiveCount, problems };
  if (!deadLetter) {
    log.error('poison message: failed validation; it will reach the DLQ after maxReceiveCount', fields);
    return false;
  }
  try {
    await deadLetter(info.record, problems.join('; '));
  } catch (error) {
    log.error('poison message: failed validation and could not be sent to the DLQ; reported for redrive', {
      ...fields,
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    return false;
  }
  log.error('poison message: failed validation; sent to the DLQ', fields);
  return true;
}

function recordInfo(record: EnvelopedRecord, context: Context): RecordInfo {
  const queue = record.eventSourceARN.split(':').at(-1) ?? record.eventSourceARN;
  return {
    record,
    source: `SQS message ${record.messageId} (${queue})`,
    receiveCount: Number(record.attributes.ApproximateReceiveCount) || 1,
    context,
    ...(record.envelopeProblem ? { envelopeProblem: record.envelopeProblem } : {}),
  };
}

/** A record made safe to read, with what was wrong with its envelope (it is then poison, whatever its body). */
type EnvelopedRecord = SQSRecord & { envelopeProblem?: string };

/**
 * The records of an event, each with every field the consumer reads. Lambda's SQS integration always sends whole
 * envelopes; anything else (a hand-made invoke, a misrouted event) must not crash the batch with a TypeError.
 */
function recordsOf<T>(event: unknown, log: BatchLog, options: SqsPartialBatchOptions<T>): EnvelopedRecord[] {
  const raw = typeof event === 'object' && event !== null ? (event as { Records?: unknown }).Records : undefined;
  if (!Array.isArray(raw)) {
    log.error('not an SQS event: no Records list; nothing to process', { eventType: describe(event) });
    options.count?.('PoisonMessages', 1);
    return [];
  }
  return raw.map((r, i) => envelope(r, i));
}

function envelope(raw: unknown, index: number): EnvelopedRecord {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<Record<keyof SQSRecord, unknown>>;
  const problems: string[] = [];
  const text = (key: keyof SQSRecord): string | undefined => {
    const v = r[key];
    if (typeof v === 'string' && v !== '') return v;
    problems.push(`${key} is missing`);
    return undefined;
  };
  const messageId = text('messageId') ?? `record-${index}`;
  const body = text('body') ?? JSON.stringify(raw ?? null);
  const eventSourceARN = text('eventSourceARN') ?? 'unknown-queue';
  const attributes = typeof r.attributes === 'object' && r.attributes !== null ? r.attributes : undefined;
  if (!attributes) problems.push('attributes is missing');
  return {
    ...(r as SQSRecord),
    messageId,
    body,
    eventSourceARN,
    attributes: (attributes ?? {}) as SQSRecord['attributes'],
    messageAttributes: (r.messageAttributes ?? {}) as SQSRecord['messageAttributes'],
    ...(problems.length ? { envelopeProblem: `malformed SQS record: ${problems.join(', ')}` } : {}),
  };
}

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
