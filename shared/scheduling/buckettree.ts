// An index of one class's waiting buckets by their requests, for the fill's search of the best-fitting bucket
// (fill.ts). A k-d tree: each node covers a run of buckets and keeps, per resource, the smallest and largest request
// among them and how many of them still hold pods. The search descends best bound first and passes over every node
// whose bound (its largest requests, clipped to the claim's room, scored) cannot beat the best bucket found, or whose
// smallest requests no longer fit. With every request distinct, a fill then looks at a few leaves per pod instead of
// every bucket of a band (docs/performance.md, Planning cost).
import { dotProductScore } from './cost';

/** Buckets per leaf: a leaf is scanned whole. */
const LEAF = 8;
/** Enough for any tree of fewer than 2^60 buckets (two entries per level). */
const STACK = 128;

/** What the tree needs of a bucket (queue.ts Bucket). */
export interface TreeBucket {
  shape: { requests: Float64Array };
  remaining: number;
  ordinal: number;
  /** Set by the tree: the leaf that holds it. */
  leaf: number;
}

/** The best bucket a search has found so far; `offer` decides whether a fitting bucket may join and is better. */
export interface BucketPick<B> {
  /** -1 until a bucket is found. */
  score: number;
  /** Called for each bucket with pods that fits, with a score no lower than `score`. */
  offer(b: B, score: number): void;
}

export class BucketTree<B extends TreeBucket> {
  private readonly items: B[];
  private readonly lo: number[] = [];
  private readonly hi: number[] = [];
  private readonly left: number[] = [];
  private readonly right: number[] = [];
  private readonly parent: number[] = [];
  private readonly live: number[] = [];
  private readonly min: number[] = [];
  private readonly max: number[] = [];
  private readonly stackNode = new Int32Array(STACK);
  private readonly stackBound = new Float64Array(STACK);

  constructor(
    buckets: readonly B[],
    private readonly dims: number,
  ) {
    this.items = [...buckets];
    if (this.items.length > 0) this.build(0, this.items.length, -1);
  }

  /** Whether some bucket of the tree still holds pods. */
  get alive(): boolean {
    return (this.live[0] ?? 0) > 0;
  }

  /** The bucket just emptied (call once, when its last pod leaves). */
  emptied(b: B): void {
    for (let n = b.leaf; n >= 0; n = this.parent[n] as number) this.live[n] = (this.live[n] as number) - 1;
  }

  /**
   * Offers `pick` every bucket with pods that fits the room (`alloc` − `used`) and whose dot-product score could be
   * the best, best bound first. A node is skipped only when its bound is below the best score found, so ties (an
   * earlier bucket wins them) are still offered.
   */
  search(used: Float64Array, alloc: Float64Array, pick: BucketPick<B>): void {
    if (!this.alive) return;
    const nodes = this.stackNode;
    const bounds = this.stackBound;
    let top = 0;
    nodes[0] = 0;
    bounds[0] = this.bound(0, used, alloc);
    top = bounds[0] < 0 ? 0 : 1;
    while (top > 0) {
      top--;
      const n = nodes[top] as number;
      if ((bounds[top] as number) < pick.score) continue;
      const l = this.left[n] as number;
      if (l < 0) {
        this.scan(n, used, alloc, pick);
        continue;
      }
      const r = this.right[n] as number;
      const bl = (this.live[l] as number) > 0 ? this.bound(l, used, alloc) : -1;
      const br = (this.live[r] as number) > 0 ? this.bound(r, used, alloc) : -1;
      // The better child goes on top of the stack, so it is searched first.
      const [first, firstBound, second, secondBound] = bl >= br ? [l, bl, r, br] : [r, br, l, bl];
      if (secondBound >= 0 && secondBound >= pick.score) {
        nodes[top] = second;
        bounds[top++] = secondBound;
      }
      if (firstBound >= 0 && firstBound >= pick.score) {
        nodes[top] = first;
        bounds[top++] = firstBound;
      }
    }
  }

  private scan(n: number, used: Float64Array, alloc: Float64Array, pick: BucketPick<B>): void {
    const end = this.hi[n] as number;
    for (let i = this.lo[n] as number; i < end; i++) {
      const b = this.items[i] as B;
      if (b.remaining <= 0) continue;
      const score = dotProductScore(b.shape.requests, used, alloc);
      if (score >= 0 && score >= pick.score) pick.offer(b, score);
    }
  }

  /**
   * At least the dot-product score of any bucket under node `n` that fits, or -1 when none can fit (some resource's
   * smallest request exceeds the room). Each resource's term takes the largest request, but no more than the room
   * (plus a hair, so rounding never puts a fitting bucket's term above it); the terms are computed as
   * `dotProductScore` computes them, so the bound is never below a score.
   */
  private bound(n: number, used: Float64Array, alloc: Float64Array): number {
    const off = n * this.dims;
    let s = 0;
    for (let i = 0; i < this.dims; i++) {
      const a = alloc[i] as number;
      const u = used[i] as number;
      const lo = this.min[off + i] as number;
      if (lo > 0 && u + lo > a) return -1;
      const room = a - u;
      const hi = Math.min(this.max[off + i] as number, room + room * 1e-9);
      if (hi > 0 && a > 0 && room > 0) s += (hi * room) / (a * a);
    }
    return s;
  }

  private build(lo: number, hi: number, parent: number): number {
    const n = this.lo.length;
    const dims = this.dims;
    this.lo.push(lo);
    this.hi.push(hi);
    this.parent.push(parent);
    this.left.push(-1);
    this.right.push(-1);
    let live = 0;
    for (let d = 0; d < dims; d++) {
      this.min.push(Number.POSITIVE_INFINITY);
      this.max.push(Number.NEGATIVE_INFINITY);
    }
    for (let i = lo; i < hi; i++) {
      const b = this.items[i] as B;
      if (b.remaining > 0) live++;
      const r = b.shape.requests;
      for (let d = 0; d < dims; d++) {
        const v = r[d] as number;
        if (v < (this.min[n * dims + d] as number)) this.min[n * dims + d] = v;
        if (v > (this.max[n * dims + d] as number)) this.max[n * dims + d] = v;
      }
    }
    this.live.push(live);
    if (hi - lo <= LEAF) {
      for (let i = lo; i < hi; i++) (this.items[i] as B).leaf = n;
      return n;
    }
    // Split on the resource whose requests spread the most, relative to their size.
    let dim = 0;
    let spread = -1;
    for (let d = 0; d < dims; d++) {
      const mx = this.max[n * dims + d] as number;
      const s = mx > 0 ? (mx - (this.min[n * dims + d] as number)) / mx : 0;
      if (s > spread) {
        spread = s;
        dim = d;
      }
    }
    const mid = (lo + hi) >> 1;
    select(this.items, lo, hi, mid, dim);
    this.left[n] = this.build(lo, mid, n);
    this.right[n] = this.build(mid, hi, n);
    return n;
  }
}

/**
 * Reorders `items[lo, hi)` so that the one at `k` is where a sort by the request `dim` would put it, with none larger
 * before it and none smaller after it (Hoare's selection; linear on average).
 */
function select<B extends TreeBucket>(items: B[], lo: number, hi: number, k: number, dim: number): void {
  let l = lo;
  let r = hi - 1;
  const key = (i: number): number => (items[i] as B).shape.requests[dim] as number;
  while (l < r) {
    const pivot = key((l + r) >> 1);
    let i = l;
    let j = r;
    while (i <= j) {
      while (key(i) < pivot) i++;
      while (key(j) > pivot) j--;
      if (i <= j) {
        const t = items[i] as B;
        items[i] = items[j] as B;
        items[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) r = j;
    else if (k >= i) l = i;
    else return;
  }
}
