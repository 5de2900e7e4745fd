// The forwarder's batching as the scenario runner plays it: pods turning pending, and changes to NodePools,
// EC2NodeClasses or NodeOverlays, gather into one batch that is flushed after 1 s idle or 10 s in all.
const BATCH_IDLE_MS = 1_000;
const BATCH_MAX_MS = 10_000;

/** What a flushed batch carries: pods turned pending, a pool, class or overlay changed, and when it last changed. */
export interface FlushedBatch {
  pods: boolean;
  pools: boolean;
  last: number | undefined;
}

export class ForwarderBatch {
  private first: number | undefined;
  private last: number | undefined;
  private pods = false;
  private pools = false;

  notePending(now: number): void {
    this.note(now, 'pods');
  }

  /** The forwarder watches these kinds and sends NodePoolChanged when one changes (docs/api.md, NodeOverlay). */
  notePoolsChanged(now: number): void {
    this.note(now, 'pools');
  }

  /** When the batch is due to be flushed; undefined while it is empty. */
  flushAt(): number | undefined {
    if (this.first === undefined || this.last === undefined) return undefined;
    return Math.min(this.last + BATCH_IDLE_MS, this.first + BATCH_MAX_MS);
  }

  /** Empties the batch, returning what it held. */
  take(): FlushedBatch {
    const flushed = { pods: this.pods, pools: this.pools, last: this.last };
    this.first = undefined;
    this.last = undefined;
    this.pods = false;
    this.pools = false;
    return flushed;
  }

  private note(now: number, kind: 'pods' | 'pools'): void {
    this.first ??= now;
    this.last = now;
    this[kind] = true;
  }
}
