// The target type of a new NodeClaim: the cost-aware search over the waiting pods (cost.ts chooseTarget), and the
// reuse of its answers across a run of openings that would repeat the same search.
import { chooseTarget, type TargetChoice, WaitingTrees } from './cost';
import type { Deadline } from './deadline';
import { fleetPrice, type TypeOption } from './instancetypes';
import type { PodShape } from './podshape';
import type { WaitingQueue } from './queue';
import type { Requirements } from './requirements';
import type { NodeClaimTemplate } from './template';

/** Above this many waiting buckets, a new claim's target is chosen by scoring cells of buckets (queue.ts). */
const COARSE_ABOVE = 256;

export class TargetChooser {
  private readonly cache = new Map<string, { option: TypeOption; waiting: number }>();
  /** The target search's tree of the waiting groups (cost.ts). */
  private readonly waitingTrees = new WaitingTrees();

  constructor(
    private readonly waiting: WaitingQueue,
    private readonly deadline: Deadline,
  ) {}

  /**
   * The target type for a new claim. For pods that need a node each, choices are reused while the waiting pool has
   * not shrunk by more than a tenth since they were made: a run of such openings would repeat the same search.
   */
  choose(
    t: NodeClaimTemplate,
    shape: PodShape,
    reqs: Requirements,
    preferSpot: boolean,
    candidate: Uint8Array,
  ): TargetChoice | undefined {
    const bucket = this.waiting.bucketOf(shape.baseId);
    // Past a few hundred buckets (requests that all differ) the search scores the queue's cells instead: each stands
    // for its buckets at their mean request, which keeps a search's cost independent of the pool's variety
    // (docs/performance.md, "Planning cost with distinct requests"). Fewer buckets are scored one by one, as before.
    const coarse = this.waiting.bucketCount > COARSE_ABOVE;
    const group = bucket ? (coarse ? bucket.cell.key : this.waiting.keyOf(bucket)) : shape.id;
    const key = `${t.name}|${shape.level}|${group}|${reqs}`;
    const hit = this.cache.get(key);
    // Only pods that each need their own node (hostname spread or anti-affinity) open claims in long runs; for the
    // rest a fresh search is cheap and finds better types as the pool drains.
    const reusable = shape.perNodeLimit !== Number.POSITIVE_INFINITY;
    if (reusable && hit && candidate[hit.option.index] === 1 && this.waiting.size >= hit.waiting * 0.8) {
      const { rank, price } = fleetPrice(t.prices.table(reqs), hit.option.index, preferSpot);
      if (rank < 2) return { option: hit.option, price };
    }
    const choice = chooseTarget(
      t.ranked,
      (o) => candidate[o.index] === 1,
      shape,
      coarse ? this.waiting.cells : this.waiting.buckets,
      t.prices.table(reqs),
      preferSpot,
      (s, o) => t.canShare(s, o),
      t.duals,
      () => this.deadline.passed(),
      this.waitingTrees,
    );
    if (choice) this.cache.set(key, { option: choice.option, waiting: this.waiting.size });
    return choice;
  }
}
