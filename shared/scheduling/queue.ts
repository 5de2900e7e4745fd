// The waiting queue of one solve: pending pods in the order they get their turn, grouped into buckets of
// interchangeable pods so that target scoring and fills (cost.ts, fill.ts) work per bucket. A pod leaves the waiting
// pool when its turn comes or when a fill places it ahead of its turn.
import type { Pod } from '../api/kube';
import type { WaitingGroup } from './cost';
import type { PodBase, PodShape } from './podshape';

export interface QueuedPod {
  pod: Pod;
  base: PodBase;
  order: number;
  /** Already placed ahead of its turn, by a NodeClaim's fill (see fill.ts). */
  done: boolean;
}

/** Waiting pods of one base, not yet processed, in queue order. */
export interface Waiting {
  base: PodBase;
  remaining: number;
  members: QueuedPod[];
  bucket: Bucket;
}

/**
 * Waiting pods that are interchangeable for packing: same requests, node requirements, tolerations and host ports.
 * Scoring and fills work per bucket, so thousands of pod shapes that differ only in labels cost one entry.
 */
export interface Bucket extends WaitingGroup {
  /** No topology constraint of its own: may be placed ahead of its turn by a fill. */
  simple: boolean;
  groups: Waiting[];
}

export class WaitingQueue {
  private readonly waiting = new Map<number, Waiting>();
  private readonly byKey = new Map<string, Bucket>();
  private readonly keys = new Map<Bucket, string>();
  private list: Bucket[] = [];
  private count = 0;

  /** Buckets that still hold waiting pods. Replaced, never changed in place, when one empties. */
  get buckets(): readonly Bucket[] {
    return this.list;
  }

  /** How many pods are still waiting. */
  get size(): number {
    return this.count;
  }

  /** Adds a pod, in turn order, under its base's first shape. */
  enqueue(q: QueuedPod, shape: PodShape): void {
    let g = this.waiting.get(q.base.baseId);
    if (!g) {
      const bucket = this.bucketFor(shape);
      g = { base: q.base, remaining: 0, members: [], bucket };
      this.waiting.set(q.base.baseId, g);
      bucket.groups.push(g);
    }
    g.remaining++;
    g.bucket.remaining++;
    this.count++;
    g.members.push(q);
  }

  /** The bucket the base's pods wait in, if any do. */
  bucketOf(baseId: number): Bucket | undefined {
    return this.waiting.get(baseId)?.bucket;
  }

  /** The bucket's identity: equal for buckets of interchangeable pods, stable for the solve. */
  keyOf(bucket: Bucket): string | undefined {
    return this.keys.get(bucket);
  }

  /** Marks a queued pod as taken out of the waiting pool (placed now, or about to be tried on its turn). */
  consume(q: QueuedPod): void {
    q.done = true;
    const g = this.waiting.get(q.base.baseId);
    if (g && g.remaining > 0) {
      g.remaining--;
      g.bucket.remaining--;
      this.count--;
      if (g.bucket.remaining === 0) this.list = this.list.filter((x) => x.remaining > 0);
    }
  }

  /** A waiting pod of the bucket that has not been processed yet, with its group. */
  nextMember(b: Bucket): { q: QueuedPod; g: Waiting } | undefined {
    for (;;) {
      const g = b.groups[b.groups.length - 1];
      if (!g) return undefined;
      const m = g.members;
      while (m.length > 0 && (m[m.length - 1] as QueuedPod).done) m.pop();
      const q = m[m.length - 1];
      if (q) return { q, g };
      b.groups.pop();
    }
  }

  private bucketFor(shape: PodShape): Bucket {
    const limited = shape.perNodeLimit !== Number.POSITIVE_INFINITY;
    const key = [
      Array.from(shape.requests).join(','),
      shape.requirements.toString(),
      JSON.stringify(shape.tolerations),
      JSON.stringify(shape.hostPorts),
      limited ? `n${shape.perNodeLimit}` : '',
      shape.groups.length > 0 ? 'c' : 's',
    ].join('|');
    let b = this.byKey.get(key);
    if (!b) {
      b = { shape, remaining: 0, value: 0, simple: shape.groups.length === 0, groups: [] };
      this.byKey.set(key, b);
      this.keys.set(b, key);
      this.list.push(b);
    }
    return b;
  }
}
