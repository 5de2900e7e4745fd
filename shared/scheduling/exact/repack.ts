// Exact small packings (docs/architecture.md, "Exact small packings"). After the heuristic has placed every pod, the
// new NodeClaims whose pods no topology rule involves are packed again, per NodePool, as an integer program over
// node patterns (mip.ts). The program's plan replaces the heuristic's only when it is cheaper once finalized the
// way every plan is, and only after it is checked against the pods' fit, the pool's limits and minValues; otherwise,
// or when the budget runs out, the heuristic's plan stands.

import type { Pod } from '../../api/kube';
import { fleetPrice, type TypeOption, typeCompatible } from '../instancetypes';
import { lpSolverLoaded } from '../lp';
import { allowsSpot, finalizeClaim, type InflightClaim, minValuesShortfall } from '../nodeclaim';
import type { PodShape } from '../podshape';
import type { Requirements } from '../requirements';
import { addVec, fitsVec, type ResourceIndex } from '../resources';
import type { NodeClaimTemplate } from '../template';
import type { PackingStats } from '../types';
import { type LimitRow, solvePatterns } from './mip';
import { type Kind, maximalPatterns, type NodeOption, undominatedOptions } from './patterns';

/** Batches past these sizes stay with the heuristic: their pattern programs grow too large to prove in time. */
const MAX_PODS = 400;
const MAX_KINDS = 40;
const MAX_PATTERNS = 4000;
const MAX_VISITS = 200_000;
/** Default budget per solve: enough to prove a few hundred pods, small next to a provisioning round. */
export const EXACT_PACKING_MS = 250;

export interface RepackContext {
  index: ResourceIndex;
  maxTypes: number;
  /**
   * Wall-clock budget for every program of one solve together, within the solve's deadline too: the repack runs on
   * the wall clock, past every check of the solver's own.
   */
  budgetMs: number;
  /** When the whole solve must stop (`performance.now()` time): the dynamic program and rounding stop on it. */
  stopAt?: number;
  /** Whether a pod of this shape may move to another claim: no topology group selects it. */
  movable(shape: PodShape): boolean;
  /** A fresh NodeClaim name for the pool, when the exact plan needs more claims than it replaces. */
  newName(t: NodeClaimTemplate): string;
  /** An empty claim, made as the scheduler makes its own (its reservation against the limits not yet taken). */
  claim(
    t: NodeClaimTemplate,
    name: string,
    requirements: Requirements,
    options: TypeOption[],
    target: TypeOption,
  ): InflightClaim;
}

interface Member {
  pod: Pod;
  shape: PodShape;
}

interface KindGroup extends Kind {
  requirements: Requirements;
  members: Member[];
}

interface OptionMeta {
  type: TypeOption;
  requirements: Requirements;
  options: TypeOption[];
}

/**
 * Packs each pool's movable claims exactly, replacing them in `claims` where that is cheaper. Returns what it proved,
 * or undefined when no claim was eligible.
 */
export function packExactly(claims: InflightClaim[], ctx: RepackContext): PackingStats | undefined {
  const deadline = Math.min(performance.now() + ctx.budgetMs, ctx.stopAt ?? Number.POSITIVE_INFINITY);
  const byTemplate = new Map<NodeClaimTemplate, InflightClaim[]>();
  let newPods = 0;
  for (const c of claims) {
    if (c.pods.length === 0) continue;
    newPods += c.pods.length;
    // Claims with attachable volumes keep the heuristic's packing: the patterns count resources, not attach limits.
    if (!c.volumes.empty || !c.shapes.every((s) => isSimple(s) && ctx.movable(s))) continue;
    const list = byTemplate.get(c.template) ?? [];
    list.push(c);
    byTemplate.set(c.template, list);
  }
  if (byTemplate.size === 0) return undefined;
  const stats: PackingStats = { newPods, exactPods: 0, provenOptimal: true, costPerHour: 0, boundPerHour: 0 };
  for (const [t, group] of byTemplate) {
    const pods = group.reduce((n, c) => n + c.pods.length, 0);
    const outcome = pods <= MAX_PODS ? tryPackPool(t, group, claims, ctx, deadline) : undefined;
    if (!outcome) {
      stats.provenOptimal = false;
      continue;
    }
    stats.exactPods += pods;
    stats.costPerHour += outcome.cost;
    stats.boundPerHour += outcome.bound;
    if (!outcome.optimal) stats.provenOptimal = false;
  }
  if (stats.exactPods < newPods) stats.provenOptimal = false;
  return stats;
}

function tryPackPool(...args: Parameters<typeof packPool>): ReturnType<typeof packPool> {
  // Without HiGHS (a caller that never awaited loadLpSolver) or on a solver error, the heuristic's plan stands.
  if (!lpSolverLoaded()) return undefined;
  try {
    return packPool(...args);
  } catch {
    return undefined;
  }
}

function isSimple(s: PodShape): boolean {
  return s.groups.length === 0 && s.requiredAnti.length === 0 && s.hostPorts.length === 0;
}

/** Prices a set of claims the way the plan will: each at the cheapest type the fleet would launch for it. */
function planCost(group: readonly InflightClaim[], ctx: RepackContext): number | undefined {
  let sum = 0;
  for (const c of group) {
    const planned = finalizeClaim(c, ctx.index, ctx.maxTypes);
    if (!planned) return undefined;
    sum += planned.cheapest.price;
  }
  return sum;
}

function packPool(
  t: NodeClaimTemplate,
  group: InflightClaim[],
  claims: InflightClaim[],
  ctx: RepackContext,
  deadline: number,
): { cost: number; bound: number; optimal: boolean } | undefined {
  const current = planCost(group, ctx);
  if (current === undefined || performance.now() >= deadline) return undefined;
  const kinds = kindsOf(group);
  if (kinds.length > MAX_KINDS) return undefined;
  const dims = ctx.index.names.length;
  // The pool's limits, with what the replaced claims hold released.
  const available = t.remaining ? Float64Array.from(t.remaining) : undefined;
  const limits: LimitRow[] = [];
  if (available) {
    for (const c of group) {
      if (!c.reserved) continue;
      for (let i = 0; i < dims; i++)
        if (Number.isFinite(available[i])) available[i] = (available[i] as number) + (c.reserved[i] as number);
    }
    available.forEach((v, i) => {
      if (Number.isFinite(v)) limits.push({ resource: i, available: v });
    });
  }
  const { options, metas } = nodeOptions(t, kinds, available);
  const which = undominatedOptions(
    options,
    kinds,
    limits.map((l) => l.resource),
  );
  const patterns = maximalPatterns(options, which, kinds, MAX_PATTERNS, MAX_VISITS);
  if (!patterns) return undefined;
  const stopAt = ctx.stopAt ?? Number.POSITIVE_INFINITY;
  const solution = solvePatterns(
    patterns,
    options,
    kinds,
    limits,
    deadline,
    current,
    () => performance.now() >= stopAt,
  );
  if (!solution) return undefined;
  if (!solution.copies) return { cost: current, bound: solution.bound, optimal: solution.optimal };
  const bound = solution.optimal ? solution.cost : solution.bound;
  const nodes = assign(patterns, solution.copies, kinds);
  const names = group.map((c) => c.name);
  const replacement = nodes.map((n, i) => {
    const meta = metas[n.option] as OptionMeta;
    const name = names[i] ?? ctx.newName(t);
    const claim = ctx.claim(t, name, meta.requirements, meta.options, meta.type);
    // The pods join as they are: they have no topology of their own, and the claim's requirements already hold theirs.
    for (const m of n.members) claim.add(m.pod, m.shape);
    return claim;
  });
  const verified = verify(t, replacement, available);
  const cost = verified ? planCost(replacement, ctx) : undefined;
  if (cost === undefined || cost >= current - 1e-9) {
    return { cost: current, bound: Math.min(bound, current), optimal: solution.optimal };
  }
  for (const c of group) if (c.reserved) t.reserve(c.reserved, -1);
  for (const c of replacement) if (c.reserved) t.reserve(c.target.capacity, 1);
  const at = claims.indexOf(group[0] as InflightClaim);
  const keep = claims.filter((c) => !group.includes(c));
  keep.splice(Math.min(at, keep.length), 0, ...replacement);
  claims.splice(0, claims.length, ...keep);
  return { cost, bound: Math.min(bound, cost), optimal: solution.optimal };
}

/** The group's pods by kind: same requests and same node requirements. */
function kindsOf(group: readonly InflightClaim[]): KindGroup[] {
  const byKey = new Map<string, KindGroup>();
  for (const c of group) {
    c.pods.forEach((pod, i) => {
      const shape = c.shapes[i] as PodShape;
      const key = `${Array.from(shape.requests).join(',')}|${shape.requirements}`;
      let k = byKey.get(key);
      if (!k) {
        k = { requests: shape.requests, count: 0, requirements: shape.requirements, members: [] };
        byKey.set(key, k);
      }
      k.count++;
      k.members.push({ pod, shape });
    });
  }
  return [...byKey.values()];
}

/**
 * The nodes the program may buy. Pods with node requirements share a node only with pods of the same requirements
 * or with pods that have none; each such class gets its own options, priced as the plan's finalize would price them
 * (spot first when the class may use spot).
 */
function nodeOptions(
  t: NodeClaimTemplate,
  kinds: readonly KindGroup[],
  available: Float64Array | undefined,
): { options: NodeOption[]; metas: OptionMeta[] } {
  const classes = new Map<string, Requirements>();
  for (const k of kinds) classes.set(k.requirements.toString(), k.requirements);
  const free = kinds.flatMap((k, i) => (k.requirements.size === 0 ? [i] : []));
  const options: NodeOption[] = [];
  const metas: OptionMeta[] = [];
  for (const [key, reqs] of classes) {
    const allowed =
      key === '' ? free : [...kinds.flatMap((k, i) => (k.requirements.toString() === key ? [i] : [])), ...free];
    allowed.sort((a, b) => a - b);
    const merged = t.requirements.clone().addAll(reqs);
    const types = t.types.filter(
      (o) =>
        typeCompatible(o, merged) &&
        (!available || fitsVec(new Float64Array(o.capacity.length), o.capacity, available)),
    );
    if (types.length === 0) continue;
    const requirements = t.offeringRequirements(types, merged);
    const table = t.prices.table(requirements);
    const preferSpot = allowsSpot(requirements) && types.some((o) => Number.isFinite(table.spot[o.index]));
    for (const o of types) {
      const { rank, price } = fleetPrice(table, o.index, preferSpot);
      // Preferring spot, the fleet launches a spot type whenever one fits: on-demand-only types are never chosen.
      if (rank !== 0) continue;
      options.push({ alloc: o.alloc, capacity: o.capacity, price, kinds: allowed });
      metas.push({ type: o, requirements, options: types });
    }
  }
  return { options, metas };
}

/** Deals the pods out to the bought nodes; patterns may cover more pods than are left, and empty nodes are dropped. */
function assign(
  patterns: readonly { option: number; counts: Int32Array }[],
  copies: readonly number[],
  kinds: readonly KindGroup[],
): { option: number; members: Member[] }[] {
  const next = kinds.map(() => 0);
  const nodes: { option: number; members: Member[] }[] = [];
  patterns.forEach((p, j) => {
    for (let c = 0; c < (copies[j] as number); c++) {
      const members: Member[] = [];
      kinds.forEach((kind, k) => {
        const take = Math.min(p.counts[k] as number, kind.count - (next[k] as number));
        for (let i = 0; i < take; i++) members.push(kind.members[(next[k] as number) + i] as Member);
        next[k] = (next[k] as number) + take;
      });
      if (members.length > 0) nodes.push({ option: p.option, members });
    }
  });
  return nodes;
}

/** The exact plan must hold up on its own: every node fits its pods, minValues hold, and the limits are kept. */
function verify(t: NodeClaimTemplate, claims: readonly InflightClaim[], available: Float64Array | undefined): boolean {
  const zero = new Float64Array(claims[0]?.used.length ?? 0);
  const total = new Float64Array(zero.length);
  for (const c of claims) {
    if (!fitsVec(zero, c.used, c.target.alloc)) return false;
    if (t.enforceMinValues) {
      const fit = c.options.filter((o) => fitsVec(zero, c.used, o.alloc));
      if (minValuesShortfall(fit, c.requirements)) return false;
    }
    addVec(total, c.target.capacity);
  }
  return !available || fitsVec(zero, total, available);
}
