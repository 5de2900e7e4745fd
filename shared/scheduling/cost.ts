// Cost-aware packing. Karpenter packs first-fit-decreasing and lets the fleet pick the cheapest type that holds
// what landed on a claim; on mixed pods that wastes 11–17 %. We price resources instead: the LP relaxation's duals
// say what a unit of cpu, memory or a pod slot is worth, and a new NodeClaim gets the instance type whose greedy
// fill of the waiting pods costs the least per unit of that worth.
import type { Pod } from '../api/kube';
import type { ResourceList } from '../api/resources';
import type { InstanceType } from '../catalog/types';
import { type BucketPick, BucketTree, type TreeBucket } from './buckettree';
import { CandidateOrder, roundedScore } from './candidates';
import { type Deadline, NO_DEADLINE } from './deadline';
import { fleetPrice, type PriceTable, type TypeOption } from './instancetypes';
import { type LpColumn, solveCoveringLp } from './lp';
import type { PodShape } from './podshape';
import { podRequests, ResourceIndex } from './resources';
import type { NodeClaimTemplate } from './template';

const GIB = 2 ** 30;

/** LP rows use cores and GiB so coefficients stay within a few orders of magnitude. */
function scaleOf(name: string): number {
  if (name === 'cpu') return 1000;
  if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) return GIB;
  return 1;
}

/**
 * The LP lower bound, in $/h, on packing these pods onto these instance types (each at its cheapest available
 * offering, allocatable minus `daemonOverhead`). Infinity when some requested resource is offered by no type. A
 * reserved offering is near free but holds only its reservation's room, so it is a column of its own with that many
 * at most: priced as any offering, it would bring the bound to about zero, and left out, above the plan.
 */
export function lowerBound(
  pods: readonly Pod[],
  instanceTypes: readonly InstanceType[],
  daemonOverhead: ResourceList = {},
): number {
  const index = new ResourceIndex();
  const requests = pods.map((p) => podRequests(p));
  for (const r of requests) index.register(r);
  const demand = new Float64Array(index.names.length);
  for (const r of requests) {
    for (const k in r) {
      const i = index.lookup(k) as number;
      demand[i] = (demand[i] as number) + (r[k] as number);
    }
  }
  const overhead = index.vector(daemonOverhead);
  const columns: LpColumn[] = [];
  for (const it of instanceTypes) {
    let price = Number.POSITIVE_INFINITY;
    for (const o of it.offerings) if (o.available && !o.reservation) price = Math.min(price, o.price);
    const alloc = index.vector(it.allocatable);
    const supply = index.names.map((n, i) => Math.max(0, (alloc[i] as number) - (overhead[i] as number)) / scaleOf(n));
    if (Number.isFinite(price)) columns.push({ price, supply });
    for (const o of it.offerings) {
      const room = o.reservation?.capacity ?? 0;
      if (o.available && room > 0 && o.price < price) columns.push({ price: o.price, supply, max: room });
    }
  }
  const scaled = index.names.map((n, i) => (demand[i] as number) / scaleOf(n));
  return solveCoveringLp(scaled, columns).cost;
}

/**
 * Sets the template's dual prices (per engine unit) for the given demand. Falls back to pricing cpu and memory by
 * the cheapest type's rate when the LP cannot be solved, so packing still prefers efficient types.
 */
export function computeDuals(
  template: NodeClaimTemplate,
  demand: Float64Array,
  index: ResourceIndex,
  /** The solve's deadline: each LP gets what is left of it as HiGHS's time limit, and a nudged solve that would not
   * fit in what is left (measured by the base solve) is skipped. */
  deadline: Deadline = NO_DEADLINE,
): void {
  const duals = new Float64Array(index.names.length);
  const types = template.types;
  if (types.length > 0 && demand.some((d) => d > 0)) {
    const scaledDemand = index.names.map((n, i) => {
      // Only rows some type can supply: a resource no type has leaves its pods unschedulable anyway.
      const offered = types.some((t) => (t.alloc[i] as number) > 0);
      return offered ? (demand[i] as number) / scaleOf(n) : 0;
    });
    const columns = types.map((t) => ({
      price: t.minPrice,
      supply: index.names.map((n, i) => Math.max(0, t.alloc[i] as number) / scaleOf(n)),
    }));
    try {
      const central = centralDuals(scaledDemand, columns, deadline);
      central.forEach((d, i) => {
        duals[i] = d / scaleOf(index.names[i] as string);
      });
    } catch {
      fallbackDuals(types, duals);
    }
    if (duals.every((d) => d === 0)) fallbackDuals(types, duals);
  }
  template.duals = duals;
  template.ranked = rankTypes(types, duals);
}

/**
 * Duals of a degenerate LP are not unique: when every type offers cpu and memory in the same ratio, the solver may
 * put the whole price on cpu and value memory at zero, and then a node that strands half its memory looks perfect.
 * Nudging each demanded row up in turn moves the solver to each extreme dual; their average prices every binding
 * resource. Without degeneracy all solves agree and nothing changes.
 */
function centralDuals(demand: number[], columns: { price: number; supply: number[] }[], deadline: Deadline): number[] {
  const started = deadline.clock();
  const base = solveCoveringLp(demand, columns, deadline.remainingMs()).duals;
  // A nudged LP costs about what the base one did: one that would run past the deadline is not started.
  const cost = deadline.clock() - started;
  const sum = [...base];
  let n = 1;
  demand.forEach((d, r) => {
    if (d <= 0 || deadline.remainingMs() <= cost) return;
    const nudged = demand.map((x, i) => (i === r ? x * 1.001 : x));
    let duals: number[];
    try {
      duals = solveCoveringLp(nudged, columns, deadline.remainingMs()).duals;
    } catch {
      // Out of time inside the nudged solve: the duals so far stand.
      return;
    }
    duals.forEach((y, i) => {
      sum[i] = (sum[i] as number) + y;
    });
    n++;
  });
  return sum.map((y) => y / n);
}

/** Sets the template's duals from the cheapest type's rates alone, without the LP (a solve out of time). */
export function rateDuals(template: NodeClaimTemplate, index: ResourceIndex): void {
  const duals = new Float64Array(index.names.length);
  if (template.types.length > 0) fallbackDuals(template.types, duals);
  template.duals = duals;
  template.ranked = rankTypes(template.types, duals);
}

function fallbackDuals(types: readonly TypeOption[], duals: Float64Array): void {
  for (const i of [0, 1]) {
    let best = Number.POSITIVE_INFINITY;
    for (const t of types) if ((t.alloc[i] as number) > 0) best = Math.min(best, t.minPrice / (t.alloc[i] as number));
    duals[i] = Number.isFinite(best) ? best / 2 : 0;
  }
}

export function dualValue(duals: Float64Array, v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (duals[i] ?? 0) * (v[i] as number);
  return s;
}

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

export interface RankedType {
  option: TypeOption;
  /** Best score the type could reach: its price over the dual worth of its whole allocatable. */
  bound: number;
  worth: number;
}

/** Orders a pool's types by their best possible score, once per solve. */
export function rankTypes(types: readonly TypeOption[], duals: Float64Array): RankedType[] {
  return types
    .map((option) => {
      const worth = dualValue(duals, option.alloc);
      // Rounded so types priced in proportion to their size (ties up to float noise) fall back to largest first.
      const bound = worth > 0 ? roundedScore(option.minPrice / worth) : Number.POSITIVE_INFINITY;
      return { option, bound, worth };
    })
    .sort((a, b) => a.bound - b.bound || b.worth - a.worth || a.option.minPrice - b.option.minPrice);
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
  const { tree, items, classOf, classes, limit, base, start, taken, emptiedItems } = trees.of(waiting, dims);
  // How many of each waiting group one node could take, before asking whether the group may share this type.
  for (let g = 0; g < waiting.length; g++) {
    const w = waiting[g] as WaitingGroup;
    let l = w.remaining;
    if (w.shape.perNodeLimit !== Number.POSITIVE_INFINITY) {
      const own = w.shape.base === opening.base || w.bases?.has(opening.baseId) === true;
      l = Math.min(l, w.shape.perNodeLimit - (own ? 1 : 0));
    }
    base[g] = l;
  }
  let best: TargetChoice | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  let sinceImproved = 0;
  let evaluated = 0;
  const usable = usableRoom(opening, waiting, base);
  // Candidates by their best possible score at the price this claim would pay (its zones and capacity types).
  const order = new CandidateOrder<TypeOption>(ranked.length);
  for (const r of ranked) {
    if (!isCandidate(r.option)) continue;
    const { rank, price } = fleetPrice(prices, r.option.index, preferSpot);
    if (rank === 2) continue;
    const worth = usable(r.option.alloc, duals);
    order.add(r.option, worth > 0 ? price / worth : Number.POSITIVE_INFINITY, r.worth, price);
  }
  // Whether a group may share the type depends on its class alone (template.ts canShare), so it is asked once per
  // class and candidate, not once per group, and only of classes with a group the node could take: 0 not asked, 1
  // yes, 2 no. The class's first such group stands for it.
  const shares = new Int8Array(classes);
  const asking: number[] = [];
  const askedOf = new Int32Array(classes).fill(-1);
  for (let g = 0; g < waiting.length; g++) {
    const c = classOf[g] as number;
    if ((base[g] as number) > 0 && (askedOf[c] as number) < 0) {
      askedOf[c] = g;
      asking.push(c);
    }
  }
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
    let value = dualValue(duals, opening.requests);
    let same = filled;
    for (const k of asking) {
      const answer = canShare((waiting[askedOf[k] as number] as WaitingGroup).shape, option) ? 1 : 2;
      if (shares[k] !== answer) same = false;
      shares[k] = answer;
    }
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
      filled = true;
    }
    taken.length = 0;
    emptiedItems.length = 0;
    const alloc = option.alloc;
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
