// An index of one class's waiting buckets by their requests, for the fill's search of the best-fitting bucket
// (fill.ts). A k-d tree: each node covers a run of buckets and keeps, per resource, the smallest and largest request
// among them and how many of them still hold pods. The search descends best bound first and passes over every node
// whose bound (its largest requests, clipped to the claim's room, scored) cannot beat the best bucket found, or whose
// smallest requests no longer fit. With every request distinct, a fill then looks at a few leaves per pod instead of
// every bucket of a band (docs/performance.md, "Planning cost with distinct requests").

/** Buckets per leaf: a leaf is scanned whole. */
const LEAF = 8;
/** Raises a bound over the few units in the last place its products can round below the score's quotients. */
const BOUND_SLACK = 1 + 1e-12;
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
  // The nodes' fields in typed arrays (children after their parent): a fill searches the tree once per pod it adds,
  // and with every request distinct that is most of a solve's searching (docs/performance.md, "Distinct requests:
  // fill and target search").
  private readonly lo: Int32Array;
  private readonly hi: Int32Array;
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly parent: Int32Array;
  private readonly live: Int32Array;
  /** Per node and resource (`node * dims + resource`): the smallest and largest request of its buckets with pods. */
  private readonly min: Float64Array;
  private readonly max: Float64Array;
  /**
   * Per position (the order of `items`): its bucket's requests (`position * dims + resource`), and 1 while it holds
   * pods (`holds`). A leaf's scan reads these instead of each bucket, its shape and its vector: with every request
   * distinct a solve scans millions of positions, and those reads were most of a scan (docs/performance.md,
   * "Distinct requests: what survives the setup").
   */
  private readonly flat: Float64Array;
  private readonly holds: Uint8Array;
  /** Per resource, set by each search: the room with its hair of slack, and the room's weight in a score. */
  private readonly cap: Float64Array;
  private readonly weight: Float64Array;
  /** A node's box before `emptied` recomputes it. */
  private readonly keptMin: Float64Array;
  private readonly keptMax: Float64Array;
  private readonly stackNode = new Int32Array(STACK);
  private readonly stackBound = new Float64Array(STACK);

  constructor(
    buckets: readonly B[],
    private readonly dims: number,
  ) {
    // Built over flat copies of the requests (a position's bucket is `buckets[order[i]]`), then laid out in order.
    const requests = new Float64Array(buckets.length * dims);
    const order = new Int32Array(buckets.length);
    for (let i = 0; i < buckets.length; i++) {
      const r = (buckets[i] as B).shape.requests;
      for (let d = 0; d < dims; d++) requests[i * dims + d] = r[d] as number;
      order[i] = i;
    }
    this.items = [];
    this.cap = new Float64Array(dims);
    this.weight = new Float64Array(dims);
    this.keptMin = new Float64Array(dims);
    this.keptMax = new Float64Array(dims);
    // Every leaf holds a bucket, so a tree over n buckets has fewer than 2n nodes.
    const nodes = new Nodes(2 * buckets.length, dims);
    if (buckets.length > 0) build(nodes, 0, buckets.length, -1, { buckets, requests, order });
    const count = nodes.count;
    this.lo = nodes.lo.slice(0, count);
    this.hi = nodes.hi.slice(0, count);
    this.left = nodes.left.slice(0, count);
    this.right = nodes.right.slice(0, count);
    this.parent = nodes.parent.slice(0, count);
    this.live = nodes.live.slice(0, count);
    this.min = nodes.min.slice(0, count * dims);
    this.max = nodes.max.slice(0, count * dims);
    for (let i = 0; i < order.length; i++) this.items.push(buckets[order[i] as number] as B);
    this.flat = new Float64Array(buckets.length * dims);
    this.holds = new Uint8Array(buckets.length);
    for (let i = 0; i < order.length; i++) {
      const at = order[i] as number;
      for (let d = 0; d < dims; d++) this.flat[i * dims + d] = requests[at * dims + d] as number;
      this.holds[i] = (buckets[at] as B).remaining > 0 ? 1 : 0;
    }
    for (let n = 0; n < this.lo.length; n++) {
      if ((this.left[n] as number) >= 0) continue;
      for (let i = this.lo[n] as number; i < (this.hi[n] as number); i++) (this.items[i] as B).leaf = n;
    }
  }

  /**
   * Recounts every node from the buckets' `remaining` and requests as they are now, for a tree whose buckets were
   * refilled (a target search reuses one tree per candidate type, cost.ts). Children come after their parent, so one
   * backward pass settles each node from its children.
   */
  reset(): void {
    for (let n = this.lo.length - 1; n >= 0; n--) {
      this.resetBox(n);
      const l = this.left[n] as number;
      if (l >= 0) {
        const r = this.right[n] as number;
        this.live[n] = (this.live[l] as number) + (this.live[r] as number);
        this.absorb(n, l);
        this.absorb(n, r);
        continue;
      }
      this.recountLeaf(n);
    }
  }

  /** A leaf's box and live count from its buckets' `remaining` as they are now. */
  private recountLeaf(n: number): void {
    let live = 0;
    const dims = this.dims;
    for (let i = this.lo[n] as number; i < (this.hi[n] as number); i++) {
      const x = this.items[i] as B;
      // Requests read afresh too: a queue cell's (its mean) moves as its pods leave (cost.ts WaitingTrees).
      const r = x.shape.requests;
      for (let d = 0; d < dims; d++) this.flat[i * dims + d] = r[d] as number;
      this.holds[i] = x.remaining > 0 ? 1 : 0;
      if (x.remaining <= 0) continue;
      live++;
      this.widen(n, this.flat, i * this.dims);
    }
    this.live[n] = live;
  }

  /** Whether some bucket of the tree still holds pods. */
  get alive(): boolean {
    return (this.live[0] ?? 0) > 0;
  }

  /**
   * The bucket just emptied (call once, when its last pod leaves). The boxes above it shrink to the buckets that still
   * hold pods: the fill takes the largest first, and a box that kept their requests would keep drawing the search.
   */
  emptied(b: B): void {
    let n = b.leaf;
    this.live[n] = (this.live[n] as number) - 1;
    this.resetBox(n);
    for (let i = this.lo[n] as number; i < (this.hi[n] as number); i++) {
      if (this.items[i] === b) this.holds[i] = 0;
      else if (this.holds[i] === 1) this.widen(n, this.flat, i * this.dims);
    }
    // A node's box is its live children's: once one comes out as it was, so do all above it, which then only count
    // one bucket fewer (the fill empties a bucket per pod it places, and most boxes stop changing a level or two up).
    let settled = false;
    for (n = this.parent[n] as number; n >= 0; n = this.parent[n] as number) {
      this.live[n] = (this.live[n] as number) - 1;
      if (settled) continue;
      this.keepBox(n);
      this.resetBox(n);
      this.absorb(n, this.left[n] as number);
      this.absorb(n, this.right[n] as number);
      settled = this.sameBox(n);
    }
  }

  /** Copies node `n`'s box aside, for `sameBox`. */
  private keepBox(n: number): void {
    for (let d = 0; d < this.dims; d++) {
      this.keptMin[d] = this.min[n * this.dims + d] as number;
      this.keptMax[d] = this.max[n * this.dims + d] as number;
    }
  }

  /** Whether node `n`'s box is the one `keepBox` copied aside. */
  private sameBox(n: number): boolean {
    for (let d = 0; d < this.dims; d++) {
      if (this.keptMin[d] !== this.min[n * this.dims + d] || this.keptMax[d] !== this.max[n * this.dims + d])
        return false;
    }
    return true;
  }

  /**
   * Recounts the leaf holding `b` and every node above it from the buckets' `remaining` as they are now: after buckets
   * that `emptied` took out hold pods again (a target search putting back what one candidate's simulated fill took,
   * cost.ts). Nodes off those paths did not change, so the tree is then as `reset` would leave it.
   */
  refresh(b: B): void {
    let n = b.leaf;
    this.resetBox(n);
    this.recountLeaf(n);
    for (n = this.parent[n] as number; n >= 0; n = this.parent[n] as number) {
      const l = this.left[n] as number;
      const r = this.right[n] as number;
      this.live[n] = (this.live[l] as number) + (this.live[r] as number);
      this.resetBox(n);
      this.absorb(n, l);
      this.absorb(n, r);
    }
  }

  /** Widens node `n`'s box by its child `c`'s, if `c` still has buckets with pods. */
  private absorb(n: number, c: number): void {
    if ((this.live[c] as number) <= 0) return;
    for (let d = 0; d < this.dims; d++) {
      const o = n * this.dims + d;
      const co = c * this.dims + d;
      if ((this.min[co] as number) < (this.min[o] as number)) this.min[o] = this.min[co] as number;
      if ((this.max[co] as number) > (this.max[o] as number)) this.max[o] = this.max[co] as number;
    }
  }

  private resetBox(n: number): void {
    for (let d = 0; d < this.dims; d++) {
      this.min[n * this.dims + d] = Number.POSITIVE_INFINITY;
      this.max[n * this.dims + d] = Number.NEGATIVE_INFINITY;
    }
  }

  /** Widens node `n`'s box to take in the requests at `r[at...]`. */
  private widen(n: number, r: Float64Array, at: number): void {
    for (let d = 0; d < this.dims; d++) {
      const v = r[at + d] as number;
      const o = n * this.dims + d;
      if (v < (this.min[o] as number)) this.min[o] = v;
      if (v > (this.max[o] as number)) this.max[o] = v;
    }
  }

  /**
   * Offers `pick` every bucket with pods that fits the room (`alloc` − `used`) and whose dot-product score could be
   * the best, best bound first. A node is skipped only when its bound is below the best score found, so ties (an
   * earlier bucket wins them) are still offered.
   */
  search(used: Float64Array, alloc: Float64Array, pick: BucketPick<B>): void {
    if (!this.alive) return;
    for (let i = 0; i < this.dims; i++) {
      const a = alloc[i] as number;
      const room = a - (used[i] as number);
      const counts = a > 0 && room > 0;
      this.cap[i] = room + room * 1e-9;
      this.weight[i] = counts ? room / (a * a) : 0;
    }
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
      // The better child goes on top of the stack, so it is searched first. (No tuple to pick them: a cold solve runs
      // this unoptimized thousands of times, and each tuple was an allocation.)
      const leftFirst = bl >= br;
      const secondBound = leftFirst ? br : bl;
      const firstBound = leftFirst ? bl : br;
      if (secondBound >= 0 && secondBound >= pick.score) {
        nodes[top] = leftFirst ? r : l;
        bounds[top++] = secondBound;
      }
      if (firstBound >= 0 && firstBound >= pick.score) {
        nodes[top] = leftFirst ? l : r;
        bounds[top++] = firstBound;
      }
    }
  }

  private scan(n: number, used: Float64Array, alloc: Float64Array, pick: BucketPick<B>): void {
    const end = this.hi[n] as number;
    const dims = this.dims;
    const flat = this.flat;
    for (let i = this.lo[n] as number; i < end; i++) {
      if (this.holds[i] !== 1) continue;
      const score = dotProductScoreAt(flat, i * dims, dims, used, alloc);
      if (score >= 0 && score >= pick.score) pick.offer(this.items[i] as B, score);
    }
  }

  /**
   * At least the dot-product score of any bucket under node `n` that fits, or -1 when none can fit (some resource's
   * smallest request exceeds the room). Each resource's term takes the largest request, but no more than the room
   * (plus a hair, so rounding never puts a fitting bucket's term above it), times the room's weight that `search` set.
   * The terms multiply by a weight where `dotProductScore` divides, which can round a term a few units in the last
   * place below the score's; the sum is raised by a millionth of a millionth, far above that, so the bound is never
   * below a score (one division per search instead of one per resource per node: the fill and the target search
   * bound millions of nodes with every request distinct).
   */
  private bound(n: number, used: Float64Array, alloc: Float64Array): number {
    const off = n * this.dims;
    let s = 0;
    for (let i = 0; i < this.dims; i++) {
      const lo = this.min[off + i] as number;
      if (lo > 0 && (used[i] as number) + lo > (alloc[i] as number)) return -1;
      const hi = Math.min(this.max[off + i] as number, this.cap[i] as number);
      if (hi > 0) s += hi * (this.weight[i] as number);
    }
    return s * BOUND_SLACK;
  }
}

/** The nodes of a tree being built, in arrays sized for the most it can have. */
class Nodes {
  count = 0;
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly parent: Int32Array;
  readonly live: Int32Array;
  readonly min: Float64Array;
  readonly max: Float64Array;

  constructor(
    capacity: number,
    readonly dims: number,
  ) {
    this.lo = new Int32Array(capacity);
    this.hi = new Int32Array(capacity);
    this.left = new Int32Array(capacity);
    this.right = new Int32Array(capacity);
    this.parent = new Int32Array(capacity);
    this.live = new Int32Array(capacity);
    this.min = new Float64Array(capacity * dims);
    this.max = new Float64Array(capacity * dims);
  }
}

/** Builds the node over positions [lo, hi) of `src.order` and those below it; returns its number. */
function build<B extends TreeBucket>(nodes: Nodes, lo: number, hi: number, parent: number, src: Source<B>): number {
  const n = nodes.count++;
  const dims = nodes.dims;
  const { buckets, requests, order } = src;
  nodes.lo[n] = lo;
  nodes.hi[n] = hi;
  nodes.parent[n] = parent;
  nodes.left[n] = -1;
  nodes.right[n] = -1;
  let live = 0;
  for (let d = 0; d < dims; d++) {
    nodes.min[n * dims + d] = Number.POSITIVE_INFINITY;
    nodes.max[n * dims + d] = Number.NEGATIVE_INFINITY;
  }
  // The box of the buckets that hold pods (as `emptied` keeps it); the split below uses every bucket's.
  for (let i = lo; i < hi; i++) {
    const at = order[i] as number;
    if ((buckets[at] as B).remaining > 0) {
      live++;
      for (let d = 0; d < dims; d++) {
        const v = requests[at * dims + d] as number;
        const o = n * dims + d;
        if (v < (nodes.min[o] as number)) nodes.min[o] = v;
        if (v > (nodes.max[o] as number)) nodes.max[o] = v;
      }
    }
  }
  nodes.live[n] = live;
  if (hi - lo <= LEAF) return n;
  // Split on the resource whose requests spread the most, relative to their size, as a sample of at most 64 of them
  // shows it: the search is exact whatever the split, and a full pass per node lengthens the cold build of a
  // distinct-request class's tree (docs/performance.md, "Distinct requests: fill and target search").
  let dim = 0;
  let spread = -1;
  const stride = Math.max(1, Math.floor((hi - lo) / 64));
  for (let d = 0; d < dims; d++) {
    let spreadMin = Number.POSITIVE_INFINITY;
    let spreadMax = Number.NEGATIVE_INFINITY;
    for (let i = lo; i < hi; i += stride) {
      const v = requests[(order[i] as number) * dims + d] as number;
      if (v < spreadMin) spreadMin = v;
      if (v > spreadMax) spreadMax = v;
    }
    const s = spreadMax > 0 ? (spreadMax - spreadMin) / spreadMax : 0;
    if (s > spread) {
      spread = s;
      dim = d;
    }
  }
  const mid = (lo + hi) >> 1;
  select(order, requests, dims, dim, lo, hi, mid);
  nodes.left[n] = build(nodes, lo, mid, n, src);
  nodes.right[n] = build(nodes, mid, hi, n, src);
  return n;
}

/** The buckets a tree is built from, their requests flattened, and the order being built. */
interface Source<B> {
  buckets: readonly B[];
  requests: Float64Array;
  order: Int32Array;
}

/**
 * Reorders `order[lo, hi)` so that the bucket at `k` is where a sort by the request `dim` would put it, with none
 * larger before it and none smaller after it (Hoare's selection; linear on average).
 */
function select(
  order: Int32Array,
  requests: Float64Array,
  dims: number,
  dim: number,
  lo: number,
  hi: number,
  k: number,
): void {
  let l = lo;
  let r = hi - 1;
  while (l < r) {
    const pivot = requests[(order[(l + r) >> 1] as number) * dims + dim] as number;
    let i = l;
    let j = r;
    while (i <= j) {
      while ((requests[(order[i] as number) * dims + dim] as number) < pivot) i++;
      while ((requests[(order[j] as number) * dims + dim] as number) > pivot) j--;
      if (i <= j) {
        const t = order[i] as number;
        order[i] = order[j] as number;
        order[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) r = j;
    else if (k >= i) l = i;
    else return;
  }
}

/**
 * Vector bin packing's dot-product rule: the next pod is the one whose requests best line up with the node's
 * remaining room (both normalized by the node's size). Filling by this rule keeps cpu and memory running out
 * together, where largest-first would fill one and strand the other. -1 when the pod does not fit.
 */
export function dotProductScore(req: Float64Array, used: Float64Array, alloc: Float64Array): number {
  return dotProductScoreAt(req, 0, req.length, used, alloc);
}

/** `dotProductScore` of the `dims` requests at `req[at...]` (a tree's flat copy of its buckets' requests). */
function dotProductScoreAt(
  req: Float64Array,
  at: number,
  dims: number,
  used: Float64Array,
  alloc: Float64Array,
): number {
  let s = 0;
  for (let i = 0; i < dims; i++) {
    const a = alloc[i] as number;
    const r = req[at + i] as number;
    if (r > 0) {
      if ((used[i] as number) + r > a) return -1;
      s += (r * (a - (used[i] as number))) / (a * a);
    }
  }
  return s;
}
