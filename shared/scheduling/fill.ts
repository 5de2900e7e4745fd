// The fill of a newly opened NodeClaim: waiting unconstrained pods join it at once instead of waiting for their
// turn, first as a proportional slice of the waiting pool on large nodes, then one by one by the dot-product rule
// (README.md, Cost). Pods an existing node could take are left for it.
//
// Both passes make the same choices as a scan of every waiting bucket would, but reach them through the queue's cells
// (queue.ts): the slice reads the pool from the cells' running sums, and the greedy pass visits cells by an upper
// bound on their buckets' scores and stops once no unvisited cell can beat the best bucket found
// (docs/performance.md, Planning cost). With every request distinct, that is what keeps a fill from costing a scan of
// the whole pool per pod.
import { dotProductScore } from './cost';
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
  /** Scratch space for the cells' bounds, reused across fills. */
  private bounds = new Float64Array(0);

  /** `nodes`: the solve's existing nodes (the array is filled before the first claim opens). */
  constructor(
    private readonly waiting: WaitingQueue,
    private readonly nodes: readonly ExistingNode[],
    /** The solve's deadline: once passed, a fill stops where it is (the claim is valid with what it holds). */
    private readonly outOfTime: () => boolean = () => false,
  ) {}

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
    const skip = new Set<Bucket>();
    this.fillProportionally(c, skip);
    // Cells none of whose buckets can join this claim any more (the claim's room only shrinks during a fill).
    const dead = new Set<Cell>();
    for (;;) {
      if (this.outOfTime()) return;
      const best = this.bestBucket(c, skip, dead);
      if (!best) return;
      const next = this.waiting.nextMember(best);
      if (!next) {
        skip.add(best);
        continue;
      }
      const shape = next.q.base.levels[0];
      if (shape && c.tryAdd(next.q.pod, shape) === undefined) this.waiting.consume(next.q);
      else skip.add(best);
    }
  }

  /**
   * The simple bucket with the highest dot-product score that fits and may join, the earliest on a tie: what a scan
   * of every bucket in order would pick. Cells are visited best bound first; a cell's bound (its largest request per
   * resource, scored) is never below any of its buckets' scores.
   */
  private bestBucket(c: InflightClaim, skip: Set<Bucket>, dead: Set<Cell>): Bucket | undefined {
    const used = c.used;
    const alloc = c.target.alloc;
    const cells = this.waiting.cells;
    if (this.bounds.length < cells.length) this.bounds = new Float64Array(cells.length * 2);
    const bounds = this.bounds;
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[k] as Cell;
      bounds[k] = -1;
      if (!cell.simple || cell.remaining <= 0 || dead.has(cell)) continue;
      const bound = cellBound(cell, used, alloc);
      // Sharing depends on the class alone (requirements, tolerations), which every bucket of a cell has in common.
      if (bound < 0 || !c.template.canShare(cell.shape, c.target)) dead.add(cell);
      else bounds[k] = bound;
    }
    const nodes = this.nodes.length > 0;
    let best: Bucket | undefined;
    let bestScore = -1;
    for (;;) {
      let k = -1;
      let top = -1;
      for (let j = 0; j < cells.length; j++) {
        if ((bounds[j] as number) > top) {
          top = bounds[j] as number;
          k = j;
        }
      }
      // Ties with the best score still need a look: an earlier bucket wins a tie.
      if (k < 0 || top < bestScore) return best;
      bounds[k] = -1;
      const cell = cells[k] as Cell;
      let live = 0;
      let emptied = 0;
      for (const b of cell.buckets) {
        if (b.remaining <= 0) {
          emptied++;
          continue;
        }
        if (skip.has(b)) continue;
        const score = dotProductScore(b.shape.requests, used, alloc);
        // Too big now, so too big for the rest of this fill; a bucket an existing node could take is left for it.
        if (score < 0 || (nodes && this.fitsSomeNode(b.shape))) {
          skip.add(b);
          continue;
        }
        live++;
        if (score > bestScore || (score === bestScore && best !== undefined && b.ordinal < best.ordinal)) {
          bestScore = score;
          best = b;
        }
      }
      if (live === 0) dead.add(cell);
      cell.compact(emptied);
    }
  }

  /**
   * A large node takes a representative slice of the waiting pool: the same fraction of every eligible bucket,
   * sized so the slice fits. Greedy filling alone takes the big memory-heavy pods first and leaves the last nodes
   * with only cpu-heavy ones; slicing keeps every node's mix like the pool's. The greedy pass then tops it up.
   */
  private fillProportionally(c: InflightClaim, skip: Set<Bucket>): void {
    const pool = new Float64Array(c.used.length);
    // Per eligible cell: all its buckets are eligible, or only those listed.
    const eligible: { cell: Cell; only?: Bucket[] }[] = [];
    for (const cell of this.waiting.cells) {
      if (!cell.simple || cell.remaining <= 0) continue;
      // Sharing depends on the class alone (requirements, tolerations), which every bucket of a cell has in common.
      if (!c.template.canShare(cell.shape, c.target)) continue;
      if (c.failed.size === 0 && !this.cellFitsSomeNode(cell)) {
        // The cell's running sum is the sum over its buckets (exact while requests are whole numbers).
        eligible.push({ cell });
        addTimes(pool, 1, cell.total);
        continue;
      }
      const only: Bucket[] = [];
      for (const b of cell.buckets) {
        if (b.remaining <= 0 || c.failed.has(b.shape.id) || this.fitsSomeNode(b.shape)) continue;
        only.push(b);
        addTimes(pool, b.remaining, b.shape.requests);
      }
      if (only.length > 0) eligible.push({ cell, only });
    }
    let fraction = Number.POSITIVE_INFINITY;
    const alloc = c.target.alloc;
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
        const shape = next.q.base.levels[0];
        if (!shape || c.tryAdd(next.q.pod, shape) !== undefined) {
          skip.add(b);
          break;
        }
        this.waiting.consume(next.q);
      }
    }
  }
}

function addTimes(into: Float64Array, n: number, v: Float64Array): void {
  for (let i = 0; i < into.length; i++) into[i] = (into[i] as number) + n * (v[i] as number);
}

/**
 * An upper bound on the dot-product score of any bucket in the cell (dotProductScore with the cell's largest request
 * per resource), or -1 when even its smallest requests do not fit.
 */
function cellBound(cell: Cell, used: Float64Array, alloc: Float64Array): number {
  let s = 0;
  for (let i = 0; i < alloc.length; i++) {
    const a = alloc[i] as number;
    const u = used[i] as number;
    const lo = cell.min[i] as number;
    if (lo > 0 && u + lo > a) return -1;
    const m = cell.max[i] as number;
    if (m > 0 && a > 0 && a - u > 0) s += (m * (a - u)) / (a * a);
  }
  return s;
}
