// The forwarder's batching window (docs/kubernetes.md, The forwarder): flush `idleMs` after the last new item, and
// never later than `maxMs` after the first. Pure: time is passed in.

export interface BatchTiming {
  idleMs: number;
  maxMs: number;
}

export const DEFAULT_BATCH_TIMING: BatchTiming = { idleMs: 1_000, maxMs: 10_000 };

export class BatchWindow {
  private first: number | undefined;
  private last: number | undefined;

  constructor(private readonly timing: BatchTiming = DEFAULT_BATCH_TIMING) {}

  /** A new item arrived at `now`. */
  touch(now: number): void {
    this.first ??= now;
    this.last = now;
  }

  /** When the batch is due, or undefined when nothing is waiting. */
  deadline(): number | undefined {
    if (this.first === undefined || this.last === undefined) return undefined;
    return Math.min(this.last + this.timing.idleMs, this.first + this.timing.maxMs);
  }

  get open(): boolean {
    return this.first !== undefined;
  }

  reset(): void {
    this.first = undefined;
    this.last = undefined;
  }
}
