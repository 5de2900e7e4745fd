// The fill of a newly opened NodeClaim: waiting unconstrained pods join it at once instead of waiting for their
// turn, first as a proportional slice of the waiting pool on large nodes, then one by one by the dot-product rule
// (README.md, Cost). Pods an existing node could take are left for it.
import { dotProductScore } from './cost';
import type { ExistingNode } from './existingnode';
import type { InflightClaim } from './nodeclaim';
import type { PodShape } from './podshape';
import type { Bucket, WaitingQueue } from './queue';

/** Share of a node filled by a proportional slice of the pool (the greedy pass tops it up). */
const SLICE = 0.97;
/** How closely a node's cpu:memory room must match the pool's for slicing. */
const SLICE_BALANCE = 0.9;

export class ClaimFiller {
  private readonly noNodeFits = new Set<number>();

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

  /**
   * Fills a newly opened NodeClaim right away with waiting unconstrained pods, choosing each next pod by the
   * dot-product rule so the target's cpu and memory run out together. Pods placed here skip their turn in the queue;
   * constrained pods (topology) still wait for theirs, and pods an existing node could take are left for it.
   */
  fill(c: InflightClaim): void {
    const skip = new Set<Bucket>();
    this.fillProportionally(c, skip);
    for (;;) {
      if (this.outOfTime()) return;
      let best: Bucket | undefined;
      let bestScore = -1;
      for (const b of this.waiting.buckets) {
        if (!b.simple || b.remaining <= 0 || skip.has(b)) continue;
        const score = dotProductScore(b.shape.requests, c.used, c.target.alloc);
        if (score < 0) continue;
        if (!c.template.canShare(b.shape, c.target) || this.fitsSomeNode(b.shape)) {
          skip.add(b);
          continue;
        }
        if (score > bestScore) {
          bestScore = score;
          best = b;
        }
      }
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
   * A large node takes a representative slice of the waiting pool: the same fraction of every eligible bucket,
   * sized so the slice fits. Greedy filling alone takes the big memory-heavy pods first and leaves the last nodes
   * with only cpu-heavy ones; slicing keeps every node's mix like the pool's. The greedy pass then tops it up.
   */
  private fillProportionally(c: InflightClaim, skip: Set<Bucket>): void {
    const eligible: Bucket[] = [];
    const pool = new Float64Array(c.used.length);
    for (const b of this.waiting.buckets) {
      if (!b.simple || b.remaining <= 0 || c.failed.has(b.shape.id)) continue;
      if (!c.template.canShare(b.shape, c.target) || this.fitsSomeNode(b.shape)) {
        skip.add(b);
        continue;
      }
      eligible.push(b);
      for (let i = 0; i < pool.length; i++)
        pool[i] = (pool[i] as number) + b.remaining * (b.shape.requests[i] as number);
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
    for (const b of eligible) {
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
