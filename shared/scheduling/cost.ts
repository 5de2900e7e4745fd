// Cost-aware packing. Karpenter packs first-fit-decreasing and lets the fleet pick the cheapest type that holds
// what landed on a claim; on mixed pods that wastes 11–17 %. We price resources instead: the LP relaxation's duals
// say what a unit of cpu, memory or a pod slot is worth, and a new NodeClaim gets the instance type whose greedy
// fill of the waiting pods costs the least per unit of that worth.
import { type BucketPick, BucketTree, type TreeBucket } from './buckettree';
import { CandidateOrder } from './candidates';
import { dualValue, type RankedType } from './duals';
import { fleetPrice, type PriceTable, type TypeOption } from './instancetypes';
import type { PodShape } from './podshape';

/** A run of identical waiting pods, in queue order. */
export interface WaitingGroup {
  shape: PodShape;
  remaining: number;
  value: number;
  /** For a group that stands for several bases (a queue cell): the bases it holds. */
  bases?: ReadonlySet<number>;
}

export interface TargetChoice {
  option: TypeOption;
  price: number;
}

/** How many candidates to evaluate past the last improvement before settling (ties are common). */
const PATIENCE = 6;
/** A hard cap on simulated fills per new claim, for speed on long runs of one-pod-per-node claims. */
const MAX_EVALUATIONS = 12;

/**
 * Picks the instance type a new NodeClaim should be filled up to: for each candidate, fill it with the opening pod
 * and then, greedily, the waiting pods that could share the node (see `dotProductScore`), and score price ÷ dual
 * worth of what fits. Candidates are visited in order of their best possible score so the search stops as soon as
 * no remaining candidate could win.
 */
export function chooseTarget(
  ranked: readonly RankedType[],
  isCandidate: (option: TypeOption) => boolean,
  opening: PodShape,
  waiting: readonly WaitingGroup[],
  prices: PriceTable,
  preferSpot: boolean,
  /** Read once per class and candidate: its answer may depend on the shape's class only (template.ts canShare). */
  canShare: (shape: PodShape, option: TypeOption) => boolean,
  duals: Float64Array,
  /** The solve's deadline: once passed, the search settles for the best type so far and cuts fills short. */
  outOfTime: () => boolean = () => false,
  /** The solve's tree of the waiting groups, kept from one search to the next. */
  trees: WaitingTrees = new WaitingTrees(),
): TargetChoice | undefined {
  const dims = opening.requests.length;
  const used = new Float64Array(dims);
  // The fills below pick their next group by the dot-product rule through a tree of the waiting groups, refilled per
  // candidate: with every request distinct there are hundreds of groups, and a scan of all of them per step was most
  // of a constrained solve's cost (docs/performance.md, "Distinct requests: fill and target search").
  const wt = trees.of(waiting, dims);
  perNodeLimits(wt, waiting, opening);
  let best: TargetChoice | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  let sinceImproved = 0;
  let evaluated = 0;
  const usable = usableRoom(opening, waiting, wt.base);
  // Candidates by their best possible score at the price this claim would pay (its zones and capacity types).
  const order = new CandidateOrder<TypeOption>(ranked.length);
  for (const r of ranked) {
    if (!isCandidate(r.option)) continue;
    const { rank, price } = fleetPrice(prices, r.option.index, preferSpot);
    if (rank === 2) continue;
    const worth = usable(r.option.alloc, duals);
    order.add(r.option, worth > 0 ? price / worth : Number.POSITIVE_INFINITY, r.worth, price);
  }
  const asked = classesToAsk(wt, waiting);
  // Each group's limit when the fill starts, for the share answers the tree was last refilled with. A candidate with
  // the same answers puts back only what the previous fill took (`taken`, `emptiedItems`) instead of refilling the
  // whole tree: a search scores about ten candidates, and refilling every group for each was a tenth of a solve of
  // distinct requests (docs/performance.md, "Distinct requests: fill and target search").
  let filled = false;
  const pick = new FirstBest();
  for (let c = order.next(); c >= 0; c = order.next()) {
    const bound = order.bound;
    if (best && (bound >= bestScore || sinceImproved >= PATIENCE || evaluated >= MAX_EVALUATIONS || outOfTime())) break;
    const option = order.option(c);
    const price = order.price(c);
    evaluated++;
    used.set(opening.requests);
    let same = filled;
    for (const k of asked.asking) {
      const answer = canShare((waiting[asked.askedOf[k] as number] as WaitingGroup).shape, option) ? 1 : 2;
      if (asked.shares[k] !== answer) same = false;
      asked.shares[k] = answer;
    }
    startFill(wt, waiting, asked.shares, same);
    filled = true;
    const value = fill(wt, waiting, used, option.alloc, dualValue(duals, opening.requests), pick, outOfTime);
    const score = value > 0 ? price / value : price;
    sinceImproved++;
    // Ties keep the earlier candidate: the larger type, whose fill is least sensitive to the estimate.
    if (score < bestScore - 1e-12) {
      bestScore = score;
      best = { option, price };
      sinceImproved = 0;
    }
  }
  return best;
}

/** How many of each waiting group one node could take, before asking whether the group may share this type. */
function perNodeLimits(wt: WaitingTree, waiting: readonly WaitingGroup[], opening: PodShape): void {
  for (let g = 0; g < waiting.length; g++) {
    const w = waiting[g] as WaitingGroup;
    let l = w.remaining;
    if (w.shape.perNodeLimit !== Number.POSITIVE_INFINITY) {
      const own = w.shape.base === opening.base || w.bases?.has(opening.baseId) === true;
      l = Math.min(l, w.shape.perNodeLimit - (own ? 1 : 0));
    }
    wt.base[g] = l;
  }
}

/**
 * Whether a group may share the type depends on its class alone (template.ts canShare), so it is asked once per
 * class and candidate, not once per group, and only of classes with a group the node could take: `shares` is 0 not
 * asked, 1 yes, 2 no. The class's first such group (`askedOf`) stands for it.
 */
function classesToAsk(
  wt: WaitingTree,
  waiting: readonly WaitingGroup[],
): { shares: Int8Array; asking: number[]; askedOf: Int32Array } {
  const shares = new Int8Array(wt.classes);
  const asking: number[] = [];
  const askedOf = new Int32Array(wt.classes).fill(-1);
  for (let g = 0; g < waiting.length; g++) {
    const c = wt.classOf[g] as number;
    if ((wt.base[g] as number) > 0 && (askedOf[c] as number) < 0) {
      askedOf[c] = g;
      asking.push(c);
    }
  }
  return { shares, asking, askedOf };
}

/**
 * Sets each group's limit for a candidate's fill: with the same share answers as the last fill, only what that fill
 * took is put back; otherwise every group is refilled from the answers.
 */
function startFill(wt: WaitingTree, waiting: readonly WaitingGroup[], shares: Int8Array, same: boolean): void {
  const { tree, items, classOf, limit, base, start, taken, emptiedItems } = wt;
  if (same) {
    for (const g of taken) {
      limit[g] = start[g] as number;
      (items[g] as GroupItem).remaining = start[g] as number;
    }
    for (const item of emptiedItems) tree.refresh(item);
  } else {
    for (let g = 0; g < waiting.length; g++) {
      const l = base[g] as number;
      const n = l > 0 && shares[classOf[g] as number] === 1 ? l : 0;
      start[g] = n;
      limit[g] = n;
      (items[g] as GroupItem).remaining = n;
    }
    tree.reset();
  }
  taken.length = 0;
  emptiedItems.length = 0;
}

/**
 * Fills a candidate of allocatable `alloc` from `used` by the dot-product rule, a quarter of what fits of the best
 * group at a time, and returns `value` plus the dual worth of what it took.
 */
function fill(
  wt: WaitingTree,
  waiting: readonly WaitingGroup[],
  used: Float64Array,
  alloc: Float64Array,
  value: number,
  pick: FirstBest,
  outOfTime: () => boolean,
): number {
  const { tree, limit, taken, emptiedItems } = wt;
  const dims = used.length;
  for (;;) {
    // Out of time, the score rests on the fill so far: an estimate either way, and the claim itself is exact.
    if (outOfTime()) break;
    pick.start();
    tree.search(used, alloc, pick);
    const item = pick.best;
    if (!item) break;
    const g = item.ordinal;
    const w = waiting[g] as WaitingGroup;
    const k = Math.max(1, Math.ceil(Math.min(maxCopies(w.shape.requests, used, alloc), limit[g] as number) / 4));
    for (let i = 0; i < dims; i++) used[i] = (used[i] as number) + k * (w.shape.requests[i] as number);
    value += k * w.value;
    limit[g] = (limit[g] as number) - k;
    item.remaining = limit[g] as number;
    taken.push(g);
    if (item.remaining <= 0) {
      tree.emptied(item);
      emptiedItems.push(item);
    }
  }
  return value;
}

/**
 * The dual worth of what the waiting pods could use of a type, for ordering the candidates: per resource, no more
 * than the pods ask for in total, and only whole pods' worth (sums of requests are multiples of their greatest common
 * divisor, so a 1-cpu pod credits 1 cpu of a 1.93-cpu type, not 1.93). Never less than what a fill can reach, so a
 * type is skipped only when it cannot win; crediting whole allocatable instead let a run of small siblings use up
 * the search's patience before a larger type that holds several pods was ever scored.
 */
function usableRoom(
  opening: PodShape,
  waiting: readonly WaitingGroup[],
  base: Float64Array,
): (alloc: Float64Array, duals: Float64Array) => number {
  const dims = opening.requests.length;
  const demand = Float64Array.from(opening.requests);
  const step = Float64Array.from(opening.requests, integral);
  for (let g = 0; g < waiting.length; g++) {
    const n = base[g] as number;
    if (n <= 0) continue;
    const req = (waiting[g] as WaitingGroup).shape.requests;
    for (let i = 0; i < dims; i++) {
      const r = req[i] as number;
      if (r <= 0) continue;
      demand[i] = (demand[i] as number) + n * r;
      step[i] = gcd(step[i] as number, integral(r));
    }
  }
  return (alloc, duals) => {
    let worth = 0;
    for (let i = 0; i < dims; i++) {
      const d = duals[i] ?? 0;
      if (d <= 0) continue;
      const a = alloc[i] as number;
      const q = step[i] as number;
      const room = q > 0 ? Math.floor(a / q) * q : a;
      worth += d * Math.min(room, demand[i] as number);
    }
    return worth;
  };
}

/** A request as an integer step, or 0 when it has a fraction (then no rounding applies). */
function integral(v: number): number {
  return Number.isInteger(v) && v >= 0 ? v : v === 0 ? 0 : -1;
}

/** Greatest common divisor of non-negative integers; -1 (no common step) once either is not one. */
function gcd(a: number, b: number): number {
  if (a < 0 || b < 0) return -1;
  while (b > 0) [a, b] = [b, a % b];
  return a;
}

/** How many more copies of `req` fit. */
export function maxCopies(req: Float64Array, used: Float64Array, alloc: Float64Array): number {
  let k = Number.POSITIVE_INFINITY;
  for (let i = 0; i < req.length; i++) {
    const r = req[i] as number;
    if (r > 0) k = Math.min(k, Math.floor(((alloc[i] as number) - (used[i] as number)) / r + 1e-9));
  }
  return k;
}

/**
 * A tree of the waiting groups for the target search, kept while the list is the same: the queue replaces its lists
 * when it drops emptied entries and never reorders them (queue.ts), and a cell's mean request, which moves as pods
 * leave, is read afresh by every `reset`. Building the tree per search cost as much as the scans it saved.
 */
export class WaitingTrees {
  private list: readonly WaitingGroup[] | undefined;
  private built: WaitingTree | undefined;

  of(waiting: readonly WaitingGroup[], dims: number): WaitingTree {
    if (this.built && this.list === waiting && this.built.items.length === waiting.length) return this.built;
    const items = waiting.map((w, g) => ({ shape: w.shape, remaining: 0, ordinal: g, leaf: -1 }));
    // Each group's class as a small number (a group's shape, and so its class, is fixed for the list's life).
    const numbers = new Map<number, number>();
    const classOf = new Int32Array(waiting.length);
    waiting.forEach((w, g) => {
      let c = numbers.get(w.shape.classId);
      if (c === undefined) {
        c = numbers.size;
        numbers.set(w.shape.classId, c);
      }
      classOf[g] = c;
    });
    this.list = waiting;
    const n = waiting.length;
    this.built = {
      tree: new BucketTree(items, dims),
      items,
      classOf,
      classes: numbers.size,
      limit: new Float64Array(n),
      base: new Float64Array(n),
      start: new Float64Array(n),
      taken: [],
      emptiedItems: [],
    };
    return this.built;
  }
}

/**
 * The tree of one list of waiting groups, its items in the list's order, and each group's class number; with the
 * per-group arrays a search works in, kept with the tree instead of made per search (with every request distinct a
 * solve runs hundreds of searches over hundreds of groups). A search writes each group's entries before reading them.
 */
interface WaitingTree {
  tree: BucketTree<GroupItem>;
  items: GroupItem[];
  classOf: Int32Array;
  classes: number;
  /** How many more of each group the current candidate's fill may take. */
  limit: Float64Array;
  /** How many of each group one node could take, before asking whether the group may share the type. */
  base: Float64Array;
  /** Each group's limit when the last refilled fill started. */
  start: Float64Array;
  /** The groups the last candidate's fill took from, and the items it emptied (cleared before each fill). */
  taken: number[];
  emptiedItems: GroupItem[];
}

/** A waiting group in a target search's tree: `remaining` is how many more of it the simulated fill may take. */
interface GroupItem extends TreeBucket {
  shape: PodShape;
}

/** The best-scoring group that fits, the earliest on a tie: the group a scan in queue order would pick first. */
class FirstBest implements BucketPick<GroupItem> {
  score = -1;
  best: GroupItem | undefined;

  start(): void {
    this.score = -1;
    this.best = undefined;
  }

  offer(b: GroupItem, score: number): void {
    if (score > this.score || (score === this.score && this.best !== undefined && b.ordinal < this.best.ordinal)) {
      this.score = score;
      this.best = b;
    }
  }
}
