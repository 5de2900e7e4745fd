// Karpenter's Balanced consolidation policy: a consolidation move is scored by the share of its NodePool's cost it
// saves over the share of the NodePool's disruption cost it causes, and taken only when that score is at least 1/k
// with k = 2 (docs/disruption.md, "Balanced consolidation"). Other policies are not scored.
import type { NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { evictionCost } from './pods';

/** The Balanced policy's k: a move must score at least 1/k. Fixed at 2, as in Karpenter. */
export const BALANCED_K = 2;

/** What draining a node costs before any pod is counted (cordon, drain, replacement latency), in pod units. It also
 * keeps an empty node's disruption cost above zero. */
export const PER_NODE_DISRUPTION_COST = 1;

export const isBalanced = (pool: NodePool | undefined): boolean =>
  pool?.spec.disruption.consolidationPolicy === 'Balanced';

/** The saving a consolidation move must make, as a fraction of what its candidates cost: Karpless's anti-churn
 * `minSavingFraction` when any candidate's NodePool is WhenEmptyOrUnderutilized, none when every one is Balanced. There
 * the score is the threshold, as in Karpenter, and it already rejects the small savings the fraction stands in for
 * (docs/disruption.md, Balanced consolidation). A move still has to save something. */
export function minSavingFor(members: readonly { pool?: NodePool }[], fraction: number): number {
  return members.length > 0 && members.every((m) => isBalanced(m.pool)) ? 0 : fraction;
}

/** A node's disruption cost for scoring: the per-node cost plus each pod's eviction cost, negatives counted as 0. */
export function nodeDisruptionCost(pods: readonly Pod[]): number {
  return pods.reduce((s, p) => s + Math.max(0, evictionCost(p)), PER_NODE_DISRUPTION_COST);
}

/** A NodePool's denominators: the price of all its nodes and the disruption cost of all its nodes, candidates or
 * not, so a move is judged against the whole pool. */
export interface PoolTotals {
  cost: number;
  disruptionCost: number;
}

export interface MoveScore {
  nodePool: string;
  /** The pool's share of the move's saving, $/h, and of its disruption cost. */
  savings: number;
  disruptionCost: number;
  savingsFraction: number;
  disruptionFraction: number;
  score: number;
  threshold: number;
  k: number;
  approved: boolean;
}

/** The score of a move that saves `savings` and causes `disruptionCost` in a pool with `totals`. A pool with no cost
 * or no disruption cost to normalize against scores 0; a move that saves nothing scores 0; one that disrupts nothing
 * scores +Infinity. */
export function scoreMove(
  nodePool: string,
  savings: number,
  disruptionCost: number,
  totals: PoolTotals | undefined,
  k = BALANCED_K,
): MoveScore {
  const usable = !!totals && totals.cost > 0 && totals.disruptionCost > 0;
  const savingsFraction = usable && Number.isFinite(savings) ? savings / totals.cost : 0;
  const disruptionFraction = usable ? disruptionCost / totals.disruptionCost : 0;
  const score =
    savingsFraction <= 0
      ? 0
      : disruptionFraction === 0
        ? Number.POSITIVE_INFINITY
        : savingsFraction / disruptionFraction;
  const threshold = 1 / k;
  return {
    nodePool,
    savings,
    disruptionCost,
    savingsFraction,
    disruptionFraction,
    score,
    threshold,
    k,
    approved: score >= threshold,
  };
}

/** A candidate node as scoring sees it. */
export interface ScoredMember {
  poolName: string;
  pool?: NodePool;
  price: number;
  rescheduleCost: number;
}

/** Scores a move per Balanced NodePool among its candidates; the move passes only when every one of them approves.
 * A move across pools gives each pool the share of the net saving its candidates' price makes up. */
export function evaluateBalanced(
  members: readonly ScoredMember[],
  savings: number,
  totals: ReadonlyMap<string, PoolTotals>,
): { approved: boolean; scores: MoveScore[] } {
  if (members.length === 0) return { approved: false, scores: [] };
  const byPool = new Map<string, ScoredMember[]>();
  for (const m of members) byPool.set(m.poolName, [...(byPool.get(m.poolName) ?? []), m]);
  const sourceCost = members.reduce((s, m) => s + m.price, 0);
  const scores: MoveScore[] = [];
  for (const [name, list] of byPool) {
    if (!isBalanced(list[0]?.pool)) continue;
    const poolCost = list.reduce((s, m) => s + m.price, 0);
    const share = byPool.size > 1 && sourceCost > 0 ? savings * (poolCost / sourceCost) : savings;
    const disruption = list.reduce((s, m) => s + m.rescheduleCost, 0);
    scores.push(scoreMove(name, share, disruption, totals.get(name)));
  }
  return { approved: scores.every((s) => s.approved), scores };
}

const fixed = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '+Inf');

/** Karpenter's event wording: "score 0.42 < threshold 0.50 (k: 2, savings 4.2%, disruption 10.0%)". */
export function scoreText(s: MoveScore): string {
  return `score ${fixed(s.score)} ${s.approved ? '>=' : '<'} threshold ${fixed(s.threshold)} (k: ${s.k}, savings ${(
    s.savingsFraction * 100
  ).toFixed(1)}%, disruption ${(s.disruptionFraction * 100).toFixed(1)}%)`;
}

/** Why a Balanced NodePool turned the move down, or undefined when every scored pool approves. */
export function scoreBlocker(scores: readonly MoveScore[], what = 'the move'): string | undefined {
  const no = scores.find((s) => !s.approved);
  return no ? `Balanced NodePool ${no.nodePool}: ${what} ${scoreText(no)}` : undefined;
}

/** The record form of the scores (decision records are JSON). */
export const scoreDetail = (scores: readonly MoveScore[]) =>
  scores.map((s) => ({
    nodePool: s.nodePool,
    score: Number.isFinite(s.score) ? round4(s.score) : 'Infinity',
    threshold: s.threshold,
    k: s.k,
    savingsFraction: round4(s.savingsFraction),
    disruptionFraction: round4(s.disruptionFraction),
    approved: s.approved,
  }));

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
