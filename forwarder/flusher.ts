// Drives the batch window with real timers: a new item (re)arms the flush timer; a flush sends every message in
// order and on failure puts the unsent refs back and retries after a backoff. Nothing is dropped while SQS is down.
import { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff';
import { type BatchTiming, BatchWindow, DEFAULT_BATCH_TIMING } from './batch-window';
import { errorMessage, type Logger, silentLogger } from './log';
import { buildMessages, type OutgoingMessage } from './messages';
import type { ChangeTracker, Outbox } from './tracker';

export interface MessageSink {
  send(message: OutgoingMessage): Promise<void>;
}

export interface FlusherOptions {
  cluster: string;
  timing?: BatchTiming;
  backoff?: BackoffPolicy;
  log?: Logger;
  now?: () => number;
  maxMessageBytes?: number;
}

export class Flusher {
  private readonly window: BatchWindow;
  private readonly now: () => number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private timerAt: number | undefined;
  private flushing: Promise<void> | undefined;
  private failures = 0;
  private retryAt: number | undefined;
  private stopped = false;
  sentMessages = 0;
  sentRefs = 0;
  lastSuccessAt: number | undefined;

  constructor(
    private readonly tracker: ChangeTracker,
    private readonly sink: MessageSink,
    private readonly options: FlusherOptions,
  ) {
    this.window = new BatchWindow(options.timing ?? DEFAULT_BATCH_TIMING);
    this.now = options.now ?? Date.now;
    this.log = options.log ?? silentLogger;
  }

  /** Call after the tracker reported a new item. */
  notify(): void {
    this.window.touch(this.now());
    this.arm();
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Sends whatever is waiting now (used on shutdown and by tests). */
  async flushNow(): Promise<void> {
    if (this.flushing) await this.flushing;
    this.flushing = this.flush().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private arm(): void {
    if (this.stopped) return;
    const due = Math.max(this.window.deadline() ?? Number.POSITIVE_INFINITY, this.retryAt ?? 0);
    if (!Number.isFinite(due) || this.flushing) return;
    if (this.timer && this.timerAt === due) return;
    this.disarm();
    this.timerAt = due;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = undefined;
        void this.flushNow();
      },
      Math.max(0, due - this.now()),
    );
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = undefined;
  }

  private async flush(): Promise<void> {
    this.disarm();
    this.window.reset();
    const outbox = this.tracker.takeOutbox();
    const messages = buildMessages(
      this.options.cluster,
      outbox,
      new Date(this.now()).toISOString(),
      this.options.maxMessageBytes,
    );
    let sent = 0;
    try {
      for (const message of messages) {
        await this.sink.send(message);
        sent++;
        this.sentMessages++;
        this.sentRefs += message.keys.length;
      }
      if (messages.length > 0) {
        this.lastSuccessAt = this.now();
        this.log.log('INFO', 'sent', {
          messages: messages.length,
          refs: messages.reduce((n, m) => n + m.keys.length, 0),
        });
      }
      this.failures = 0;
      this.retryAt = undefined;
    } catch (err) {
      this.failures++;
      this.tracker.restore(unsent(outbox, messages.slice(sent)));
      const delay = backoffDelay(this.failures, this.options.backoff ?? DEFAULT_BACKOFF);
      this.retryAt = this.now() + delay;
      this.window.touch(this.now());
      this.log.log('WARN', 'send failed; will retry', {
        error: errorMessage(err),
        attempt: this.failures,
        retryInMs: delay,
        waiting: this.tracker.outboxSize,
      });
    } finally {
      this.flushing = undefined;
      // Items that arrived during the send, or a failed batch, need another flush.
      if (this.tracker.outboxSize > 0) {
        if (!this.window.open) this.window.touch(this.now());
        this.arm();
      }
    }
  }
}

function unsent(outbox: Outbox, messages: OutgoingMessage[]): Outbox {
  const back: Outbox = new Map();
  for (const m of messages) {
    const refs = outbox.get(m.kind);
    if (!refs) continue;
    const kept = back.get(m.kind) ?? new Map();
    for (const key of m.keys) {
      const ref = refs.get(key);
      if (ref) kept.set(key, ref);
    }
    back.set(m.kind, kept);
  }
  return back;
}
