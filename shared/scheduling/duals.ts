// What a unit of each resource is worth. The LP relaxation of covering the pending pods with a pool's instance types
// prices cpu, memory and pod slots by its duals; the solver ranks a pool's types and values the waiting pods by them
// (cost.ts), and the same LP's optimum is the lower bound a plan is compared with.
import type { Pod } from '../api/kube';
import type { ResourceList } from '../api/resources';
import type { InstanceType } from '../catalog/types';
import { roundedScore } from './candidates';
import { type Deadline, NO_DEADLINE } from './deadline';
import type { TypeOption } from './instancetypes';
import { type LpColumn, solveCoveringLp } from './lp';
import type { PodShape } from './podshape';
import type { QueuedPod } from './queue';
import { addVec, podRequests, ResourceIndex } from './resources';
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

/** Prices each pool's resources for the queued pods it could host, reading the clock once per `checkEvery` pods. */
export function priceTemplates(
  templates: readonly NodeClaimTemplate[],
  queue: readonly QueuedPod[],
  index: ResourceIndex,
  deadline: Deadline,
  cheap: boolean,
  checkEvery: number,
): void {
  for (const t of templates) {
    // Out of time, or into the setup's reserve: the LP (tens of ms per pool) gives way to the cheapest type's rates.
    if (cheap || deadline.passed()) {
      rateDuals(t, index);
      continue;
    }
    const demand = new Float64Array(index.names.length);
    let outOfTime = false;
    for (let i = 0; i < queue.length; i++) {
      if (i % checkEvery === checkEvery - 1 && deadline.passed()) {
        outOfTime = true;
        break;
      }
      const s = (queue[i] as QueuedPod).base.first;
      if (!s || (queue[i] as QueuedPod).base.invalid) continue;
      if (t.untoleratedTaint(s.classId, s.tolerations) || t.incompatibility(s.classId, s.requirements)) continue;
      addVec(demand, s.requests);
    }
    if (outOfTime) rateDuals(t, index);
    else computeDuals(t, demand, index, deadline);
  }
}

/** What a waiting shape is worth, at the duals of a pool that can host it. */
export function shapeValue(templates: readonly NodeClaimTemplate[], shape: PodShape): number {
  // Value against the first pool that can host the pod: duals differ by pool only through their type menus.
  for (const t of templates) {
    if (
      !t.untoleratedTaint(shape.classId, shape.tolerations) &&
      !t.incompatibility(shape.classId, shape.requirements)
    ) {
      return dualValue(t.duals, shape.requests);
    }
  }
  return 0;
}
