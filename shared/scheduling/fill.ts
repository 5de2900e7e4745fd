// The fill of a newly opened NodeClaim: waiting unconstrained pods join it at once instead of waiting for their
// turn, first as a proportional slice of the waiting pool on large nodes, then one by one by the dot-product rule
// (README.md, Cost). Pods an existing node could take are left for it.
//
// Both passes make the same choices as a scan of every waiting bucket would, but reach them through indexes
// (docs/performance.md, "Planning cost with distinct requests"): the slice reads the pool from the queue's cells'
// running sums (queue.ts), and
// the greedy pass searches each class's tree of buckets (buckettree.ts), passing over every part of it that cannot
// beat the best bucket found. With every request distinct, that is what keeps a fill from costing a scan of the whole
// pool per pod.
import type { BucketPick } from './buckettree';
import type { ExistingNode } from './existingnode';
import type { InflightClaim } from './nodeclaim';
import type { PodShape } from './podshape';
import type { Bucket, Cell, WaitingQueue } from './queue';

/** Share of a node filled by a proportional slice of the pool (the greedy pass tops it up). */
const SLICE = 0.97;
/** How closely a node's cpu:memory room must match the pool's for slicing. */
const SLICE_BALANCE = 0.9;

export class ClaimFiller {
  private readonly noNodeFits = new Set<number>();
  /** Fills so far: the number of the current one marks the buckets it passed over. */
  private fills = 0;
  private readonly pick: BestBucket;

  /** `nodes`: the solve's existing nodes (the array is filled before the first claim opens). */
  constructor(
    private readonly waiting: WaitingQueue,
    private readonly nodes: readonly ExistingNode[],
    /** The solve's deadline: once passed, a fill stops where it is (the claim is valid with what it holds). */
    private readonly outOfTime: () => boolean = () => false,
  ) {
    // Asked per offer, not decided here: the solve fills `nodes` after this filler is built.
    this.pick = new BestBucket((shape) => this.nodes.length > 0 && this.fitsSomeNode(shape));
  }

  /** Could an existing node take the shape? Once no node can, none ever will (nodes only fill up). */
  private fitsSomeNode(shape: PodShape): boolean {
    if (this.noNodeFits.has(shape.id)) return false;
    for (const n of this.nodes) if (n.mightTake(shape)) return true;
    this.noNodeFits.add(shape.id);
    return false;
  }

  /** Could an existing node take some bucket of the cell? False means none of its buckets fits any node. */
  private cellFitsSomeNode(cell: Cell): boolean {
    if (this.nodes.length === 0) return false;
    const smallest = { ...cell.shape, requests: cell.min };
    for (const n of this.nodes) if (n.mightTake(smallest)) return true;
    return false;
  }

  /**
   * Fills a newly opened NodeClaim right away with waiting unconstrained pods, choosing each next pod by the
   * dot-product rule so the target's cpu and memory run out together. Pods placed here skip their turn in the queue;
   * constrained pods (topology) still wait for theirs, and pods an existing node could take are left for it.
   */
  fill(c: InflightClaim): void {
    // Buckets passed over in this fill carry its number (the claim's room only shrinks, so they stay out).
    const fill = ++this.fills;
    this.fillProportionally(c, fill);
    // Whether a class may share the claim's node depends on its requirements and tolerations alone.
    const classes = this.waiting.classes.filter((k) => k.tree.alive && c.template.canShare(k.shape, c.target));
    const pick = this.pick;
    for (;;) {
      if (this.outOfTime()) return;
      pick.start(fill);
      for (const k of classes) k.tree.search(c.used, c.target.alloc, pick);
      const best = pick.best;
      if (!best) return;
      const next = this.waiting.nextMember(best);
      if (!next) {
        best.skipped = fill;
        continue;
      }
      const shape = next.q.base.first;
      if (shape && c.tryAdd(next.q.pod, shape)) this.waiting.consume(next.q);
      else best.skipped = fill;
    }
  }

  /**
   * A large node takes a representative slice of the waiting pool: the same fraction of every eligible bucket,
   * sized so the slice fits. Greedy filling alone takes the big memory-heavy pods first and leaves the last nodes
   * with only cpu-heavy ones; slicing keeps every node's mix like the pool's. The greedy pass then tops it up.
   */
  private fillProportionally(c: InflightClaim, fill: number): void {
    const pool = new Float64Array(c.used.length);
    // Per eligible cell: all its buckets are eligible, or only those listed.
    const eligible: { cell: Cell; only?: Bucket[] }[] = [];
    // Indexed loops: a claim is filled from the first pods on, before this code is optimized, and a `for...of` then
    // allocates a result object per step (docs/performance.md, "The cold 5k rows").
    const cells = this.waiting.cells;
    const alloc = c.target.alloc;
    // A bucket joins the slice only if its share of its pods rounds to one or more, so with at most `most` pods in a
    // bucket nothing joins once the pool is over `most / SLICE` times the room in some resource (the slice's fraction
    // is then below 1 / (most · SLICE)); the pool only grows as cells are added, so the pass stops there. With every
    // request distinct (one pod per bucket) that is after a few cells, not a pass over hundreds of them per claim
    // (docs/performance.md, "Distinct requests: fill and target search").
    const most = mostPerBucket(cells);
    for (let j = 0; j < cells.length; j++) {
      const cell = cells[j] as Cell;
      if (!cell.simple || cell.remaining <= 0) continue;
      // Sharing depends on the class alone (requirements, tolerations), which every bucket of a cell has in common.
      if (!c.template.canShare(cell.shape, c.target)) continue;
      if (c.failed.size === 0 && !this.cellFitsSomeNode(cell)) {
        // The cell's running sum is the sum over its buckets (exact while requests are whole numbers).
        eligible.push({ cell });
        addTimes(pool, 1, cell.total);
        if (outgrows(pool, c.used, alloc, most)) return;
        continue;
      }
      const only: Bucket[] = [];
      let emptied = 0;
      const buckets = cell.buckets;
      for (let j = 0; j < buckets.length; j++) {
        const b = buckets[j] as Bucket;
        if (b.remaining <= 0) emptied++;
        if (b.remaining <= 0 || c.failed.has(b.shape.id) || this.fitsSomeNode(b.shape)) continue;
        only.push(b);
        addTimes(pool, b.remaining, b.shape.requests);
      }
      cell.compact(emptied);
      if (only.length > 0) eligible.push({ cell, only });
      if (outgrows(pool, c.used, alloc, most)) return;
    }
    let fraction = Number.POSITIVE_INFINITY;
    for (let i = 0; i < pool.length; i++) {
      const p = pool[i] as number;
      if (p > 0) fraction = Math.min(fraction, ((alloc[i] as number) - (c.used[i] as number)) / p);
    }
    // Small nodes relative to the pool gain nothing from slicing (a slice would round to zero pods).
    if (!Number.isFinite(fraction) || fraction <= 0 || fraction * this.waiting.size < 20) return;
    // Slice only when the node's cpu:memory room matches the pool's: a cpu-rich or memory-rich type is there to take
    // the pods that suit it, which the greedy pass picks better.
    const cpuRoom = ((alloc[0] as number) - (c.used[0] as number)) / (pool[0] as number);
    const memRoom = ((alloc[1] as number) - (c.used[1] as number)) / (pool[1] as number);
    if (!(Math.min(cpuRoom, memRoom) / Math.max(cpuRoom, memRoom) >= SLICE_BALANCE)) return;
    const share = Math.min(1, fraction * SLICE);
    // Only buckets whose slice rounds to a pod or more take part; in bucket order, as a scan of them all would.
    const taking: Bucket[] = [];
    for (const { cell, only } of eligible) {
      if (Math.floor(cell.maxRemaining * share) < 1) continue;
      for (const b of only ?? cell.buckets) if (b.remaining > 0 && Math.floor(b.remaining * share) >= 1) taking.push(b);
    }
    taking.sort((a, b) => a.ordinal - b.ordinal);
    for (const b of taking) {
      let k = Math.floor(b.remaining * share);
      while (k-- > 0) {
        const next = this.waiting.nextMember(b);
        if (!next) break;
        const shape = next.q.base.first;
        if (!shape || !c.tryAdd(next.q.pod, shape)) {
          b.skipped = fill;
          break;
        }
        this.waiting.consume(next.q);
      }
    }
  }
}

/** The most pods any bucket of a simple cell with pods ever held (an upper bound on any such bucket's `remaining`). */
function mostPerBucket(cells: readonly Cell[]): number {
  let most = 0;
  for (let j = 0; j < cells.length; j++) {
    const cell = cells[j] as Cell;
    if (cell.simple && cell.remaining > 0 && cell.maxRemaining > most) most = cell.maxRemaining;
  }
  return most;
}

/**
 * Whether the pool is past `most / SLICE` times the claim's room in some resource, so that no bucket of at most
 * `most` pods could join a slice of it (with a margin for rounding: only a clear excess counts).
 */
function outgrows(pool: Float64Array, used: Float64Array, alloc: Float64Array, most: number): boolean {
  for (let i = 0; i < pool.length; i++) {
    const p = pool[i] as number;
    if (p > 0 && ((alloc[i] as number) - (used[i] as number)) * most * SLICE * (1 + 1e-9) < p) return true;
  }
  return false;
}

function addTimes(into: Float64Array, n: number, v: Float64Array): void {
  for (let i = 0; i < into.length; i++) into[i] = (into[i] as number) + n * (v[i] as number);
}

/**
 * The simple bucket with the highest dot-product score that may join, the earliest on a tie: what a scan of every
 * bucket in order would pick. Bucket trees offer it candidates best bound first (buckettree.ts).
 */
class BestBucket implements BucketPick<Bucket> {
  score = -1;
  best: Bucket | undefined;
  private fill = 0;

  constructor(
    /** Whether an existing node could take the shape: a bucket one could is left for it. */
    private readonly fitsSomeNode: (shape: PodShape) => boolean,
  ) {}

  start(fill: number): void {
    this.fill = fill;
    this.score = -1;
    this.best = undefined;
  }

  offer(b: Bucket, score: number): void {
    if (b.skipped === this.fill) return;
    if (this.fitsSomeNode(b.shape)) {
      b.skipped = this.fill;
      return;
    }
    if (score > this.score || (score === this.score && this.best !== undefined && b.ordinal < this.best.ordinal)) {
      this.score = score;
      this.best = b;
    }
  }
}
