// An in-memory SQS queue on a (virtual) clock, with the semantics the control plane relies on: FIFO message groups
// (one group is blocked while any of its messages is in flight, order kept across redeliveries), deduplication ids
// remembered for five minutes, DelaySeconds, visibility timeouts with redelivery, and redrive to a dead-letter queue
// once a message has been received maxReceiveCount times. Standard queues have no groups and no deduplication.
import { createHash } from 'node:crypto';
import type { Clock } from '../../ports';

export const DEDUPLICATION_WINDOW_MS = 5 * 60_000;

export interface MemoryQueueOptions {
  /** A name ending in `.fifo` makes a FIFO queue. */
  name: string;
  clock: Clock;
  visibilityTimeoutSeconds?: number;
  /** Queue-level delay for every message (the only delay a FIFO queue takes). */
  delaySeconds?: number;
  contentBasedDeduplication?: boolean;
  /** Redrive policy: after this many receives the next receive moves the message to `deadLetterQueue`. */
  redrive?: { deadLetterQueue: MemoryQueue; maxReceiveCount: number };
  region?: string;
  account?: string;
}

export interface SendInput {
  body: string;
  groupId?: string;
  deduplicationId?: string;
  /** Standard queues only; SQS rejects a per-message delay on a FIFO queue. */
  delaySeconds?: number;
  /** String message attributes (a dead-lettered message names its source queue, reason and original id). */
  attributes?: Record<string, string>;
}

export interface SendOutput {
  messageId: string;
  /** False when a FIFO queue dropped it as a duplicate within the deduplication window. */
  accepted: boolean;
  sequenceNumber?: string;
}

export interface StoredMessage {
  messageId: string;
  body: string;
  groupId?: string;
  deduplicationId?: string;
  sequenceNumber?: string;
  attributes?: Record<string, string>;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  /** Set while in flight; a stale handle (from an earlier receive) no longer deletes the message. */
  receiptHandle?: string;
}

export interface ReceivedMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  receiveCount: number;
  sentAt: number;
  firstReceivedAt: number;
  groupId?: string;
  deduplicationId?: string;
  sequenceNumber?: string;
}

export class MemoryQueue {
  readonly name: string;
  readonly fifo: boolean;
  readonly arn: string;
  readonly url: string;
  /** Every message that was moved here from a source queue's redrive, or sent here, in arrival order. */
  private messages: StoredMessage[] = [];
  private readonly dedup = new Map<string, number>();
  private seq = 0;
  private receipts = 0;

  constructor(private readonly options: MemoryQueueOptions) {
    this.name = options.name;
    this.fifo = options.name.endsWith('.fifo');
    const region = options.region ?? 'us-west-2';
    const account = options.account ?? '111122223333';
    this.arn = `arn:aws:sqs:${region}:${account}:${options.name}`;
    this.url = `https://sqs.${region}.amazonaws.com/${account}/${options.name}`;
    const dlq = options.redrive?.deadLetterQueue;
    if (dlq && dlq.fifo !== this.fifo) {
      throw new Error(
        `queue ${options.name}: its dead-letter queue ${dlq.name} must be of the same type (FIFO or standard)`,
      );
    }
    if (options.redrive && options.redrive.maxReceiveCount < 1) {
      throw new Error(`queue ${options.name}: maxReceiveCount must be at least 1`);
    }
  }

  get visibilityTimeoutMs(): number {
    return (this.options.visibilityTimeoutSeconds ?? 30) * 1000;
  }

  send(input: SendInput): SendOutput {
    const now = this.options.clock.now();
    const messageId = this.newId('m');
    if (this.fifo) {
      if (!input.groupId) throw new Error(`SendMessage to ${this.name}: MessageGroupId is required on a FIFO queue`);
      if (input.delaySeconds) {
        throw new Error(`SendMessage to ${this.name}: DelaySeconds per message is not supported on a FIFO queue`);
      }
      const dedupId =
        input.deduplicationId ??
        (this.options.contentBasedDeduplication ? createHash('sha256').update(input.body).digest('hex') : undefined);
      if (!dedupId) {
        throw new Error(`SendMessage to ${this.name}: MessageDeduplicationId is required without content-based dedup`);
      }
      this.forgetExpiredDedup(now);
      if (this.dedup.has(dedupId)) return { messageId, accepted: false };
      this.dedup.set(dedupId, now);
      const sequenceNumber = String(++this.seq).padStart(20, '0');
      this.messages.push({
        messageId,
        body: input.body,
        groupId: input.groupId,
        deduplicationId: dedupId,
        sequenceNumber,
        ...(input.attributes ? { attributes: { ...input.attributes } } : {}),
        sentAt: now,
        visibleAt: now + (this.options.delaySeconds ?? 0) * 1000,
        receiveCount: 0,
      });
      return { messageId, accepted: true, sequenceNumber };
    }
    const delay = input.delaySeconds ?? this.options.delaySeconds ?? 0;
    if (delay < 0 || delay > 900)
      throw new Error(`SendMessage to ${this.name}: DelaySeconds ${delay} is not in 0..900`);
    this.messages.push({
      messageId,
      body: input.body,
      ...(input.attributes ? { attributes: { ...input.attributes } } : {}),
      sentAt: now,
      visibleAt: now + delay * 1000,
      receiveCount: 0,
    });
    return { messageId, accepted: true };
  }

  /**
   * Up to `max` visible messages, made invisible for the visibility timeout. On a FIFO queue a group with a message
   * in flight yields nothing, and a group's messages come in order. A message already received maxReceiveCount
   * times is moved to the dead-letter queue instead of being returned.
   */
  receive(max = 10, visibilityTimeoutSeconds?: number): ReceivedMessage[] {
    const now = this.options.clock.now();
    const out: ReceivedMessage[] = [];
    const blocked = new Set<string>();
    if (this.fifo) {
      for (const m of this.messages)
        if (m.groupId !== undefined && m.visibleAt > now && m.receiveCount > 0) blocked.add(m.groupId);
    }
    for (const m of [...this.messages]) {
      if (out.length >= max) break;
      if (this.fifo && m.groupId !== undefined && blocked.has(m.groupId)) continue;
      if (m.visibleAt > now) {
        // A delayed (never received) FIFO message holds back the rest of its group too: order is per group.
        if (this.fifo && m.groupId !== undefined) blocked.add(m.groupId);
        continue;
      }
      const redrive = this.options.redrive;
      if (redrive && m.receiveCount >= redrive.maxReceiveCount) {
        this.remove(m);
        redrive.deadLetterQueue.accept(m);
        continue;
      }
      m.receiveCount++;
      m.firstReceivedAt ??= now;
      m.visibleAt = now + (visibilityTimeoutSeconds ?? this.options.visibilityTimeoutSeconds ?? 30) * 1000;
      m.receiptHandle = this.newId('r');
      out.push({
        messageId: m.messageId,
        receiptHandle: m.receiptHandle,
        body: m.body,
        receiveCount: m.receiveCount,
        sentAt: m.sentAt,
        firstReceivedAt: m.firstReceivedAt,
        ...(m.groupId !== undefined ? { groupId: m.groupId } : {}),
        ...(m.deduplicationId !== undefined ? { deduplicationId: m.deduplicationId } : {}),
        ...(m.sequenceNumber !== undefined ? { sequenceNumber: m.sequenceNumber } : {}),
      });
    }
    return out;
  }

  /** Deletes a received message; false for an unknown or stale receipt handle. */
  delete(receiptHandle: string): boolean {
    const m = this.messages.find((x) => x.receiptHandle === receiptHandle);
    if (!m) return false;
    this.remove(m);
    return true;
  }

  /** ChangeMessageVisibility: 0 makes an in-flight message visible again at once. */
  changeVisibility(receiptHandle: string, seconds: number): boolean {
    const m = this.messages.find((x) => x.receiptHandle === receiptHandle);
    if (!m) return false;
    m.visibleAt = this.options.clock.now() + seconds * 1000;
    return true;
  }

  /** Counts as CloudWatch reports them: visible, in flight (received, not deleted) and delayed. */
  depth(): { visible: number; inFlight: number; delayed: number } {
    const now = this.options.clock.now();
    let visible = 0;
    let inFlight = 0;
    let delayed = 0;
    for (const m of this.messages) {
      if (m.visibleAt <= now) visible++;
      else if (m.receiveCount > 0) inFlight++;
      else delayed++;
    }
    return { visible, inFlight, delayed };
  }

  get size(): number {
    return this.messages.length;
  }

  /** Every message held, in order (for tests and the dev summary). */
  peek(): readonly StoredMessage[] {
    return this.messages.map((m) => ({ ...m }));
  }

  /** When the next delayed or in-flight message becomes visible, if any. */
  nextVisibleAt(): number | undefined {
    const now = this.options.clock.now();
    let next: number | undefined;
    for (const m of this.messages)
      if (m.visibleAt > now && (next === undefined || m.visibleAt < next)) next = m.visibleAt;
    return next;
  }

  /** A message redriven from a source queue keeps its id, body and group, and is visible at once. */
  private accept(m: StoredMessage): void {
    const { receiptHandle: _dropped, ...rest } = m;
    this.messages.push({ ...rest, visibleAt: this.options.clock.now(), receiveCount: 0 });
  }

  private remove(m: StoredMessage): void {
    this.messages = this.messages.filter((x) => x !== m);
  }

  private forgetExpiredDedup(now: number): void {
    for (const [id, at] of this.dedup) if (now - at >= DEDUPLICATION_WINDOW_MS) this.dedup.delete(id);
  }

  private newId(prefix: string): string {
    const n = ++this.receipts;
    const hex = createHash('sha256').update(`${this.name}/${prefix}/${n}`).digest('hex');
    return prefix === 'm'
      ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`
      : `${prefix}-${hex.slice(0, 40)}`;
  }
}
