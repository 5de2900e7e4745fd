// The exact packing as an integer program over node patterns, solved by HiGHS (docs/architecture.md, "Exact small
// packings"): buy whole nodes, each a maximal pattern, so every kind's pods are covered and the pool's limits hold,
// at least cost. Its LP relaxation (the Gilmore–Gomory bound) bounds any packing of these pods from below.
import { solveModel } from '../lp';
import { coverByDp } from './dp';

import type { Kind, NodeOption, Pattern } from './patterns';

/** States × patterns the dynamic program may visit before the integer program takes over. */
const DP_WORK = 2_000_000;

export interface LimitRow {
  /** Resource index counted against the limit. */
  resource: number;
  /** What the pool may still launch of it. */
  available: number;
}

export interface PatternSolution {
  /** Copies of each pattern to buy; undefined when no packing beats the incumbent. */
  copies?: number[];
  /** Cost of `copies`, or the incumbent's when there are none. */
  cost: number;
  /** No cheaper packing exists. */
  optimal: boolean;
  /** A lower bound on any packing of these pods, $/h. */
  bound: number;
}

/**
 * Solves the pattern program by `deadline` (a `performance.now()` time), given the cost of a packing already in hand. HiGHS's branch and bound
 * has a fixed start-up cost of tens of milliseconds, so it runs only when the LP relaxation and a rounding of its
 * solution cannot settle the question: a packing that costs no more than the relaxation is optimal as it stands.
 * Undefined when even the relaxation could not be solved in time (or no packing exists under the limits).
 * `expired` is the solve's own deadline: the JavaScript steps (the dynamic program, the rounding) stop on it, where
 * HiGHS stops on the time limit it is handed from `deadline` (docs/performance.md, "A deadline that holds").
 */
export function solvePatterns(
  patterns: readonly Pattern[],
  options: readonly NodeOption[],
  kinds: readonly Kind[],
  limits: readonly LimitRow[],
  deadline: number,
  incumbent: number,
  expired: () => boolean = () => false,
): PatternSolution | undefined {
  const started = performance.now();
  const seconds = (deadline - started) / 1000;
  if (patterns.length === 0 || seconds <= 0) return undefined;
  const exact = coverByDp(patterns, kinds, DP_WORK, expired);
  if (exact && withinLimits(patterns, options, limits, exact)) {
    const cost = costOf(patterns, exact);
    // Exact: no packing is cheaper than the program's optimum, the incumbent included.
    if (cost < incumbent - 1e-9) return { copies: exact, cost, optimal: true, bound: cost };
    return { cost: incumbent, optimal: true, bound: Math.min(cost, incumbent) };
  }
  if (expired()) return undefined;
  const relaxing = performance.now();
  const relaxation = model(patterns, options, kinds, limits, false);
  // The dynamic program and the model's text spent part of `seconds`.
  const relaxLimit = seconds - (performance.now() - started) / 1000;
  if (relaxLimit <= 0) return undefined;
  const relaxed = solveModel(relaxation, { time_limit: relaxLimit });
  const relaxMs = performance.now() - relaxing;
  if (relaxed.Status !== 'Optimal') return undefined;
  const bound = relaxed.ObjectiveValue;
  const proven = (cost: number) => cost <= bound * (1 + 1e-9) + 1e-12;
  let best: PatternSolution = { cost: incumbent, optimal: proven(incumbent), bound: Math.min(bound, incumbent) };
  const fractional = patterns.map((_, j) => (relaxed.Columns[`x${j}`] as { Primal?: number } | undefined)?.Primal ?? 0);
  const duals = (relaxed.Rows as { Dual?: number }[]).slice(0, kinds.length).map((r) => Math.abs(r.Dual ?? 0));
  const rounded = roundUp(fractional, duals, patterns, options, kinds, limits, expired);
  if (rounded) {
    const cost = costOf(patterns, rounded);
    if (cost < best.cost - 1e-9) best = { copies: rounded, cost, optimal: proven(cost), bound };
  }
  if (best.optimal) return best;
  // HiGHS reads the model before its clock starts, and its time limit does not cover the reading: a few hundred
  // milliseconds for a few thousand patterns. Reading the integer program costs about what the whole relaxation of
  // the same patterns did, so the program is given what is left less that, and not started without it
  // (docs/performance.md, A deadline that holds).
  const program = model(patterns, options, kinds, limits, true);
  const left = seconds - (performance.now() - started + relaxMs) / 1000;
  if (left <= 0) return best;
  const sol = solveModel(program, {
    time_limit: left,
    mip_rel_gap: 1e-9,
    mip_abs_gap: 1e-9,
  });
  if (sol.Status !== 'Optimal' && sol.Status !== 'Time limit reached') return best;
  const copies = patterns.map((_, j) =>
    Math.round((sol.Columns[`x${j}`] as { Primal?: number } | undefined)?.Primal ?? 0),
  );
  const optimal = sol.Status === 'Optimal';
  // A time-limited solve may stop before it has any packing: then nothing is covered.
  if (!covers(patterns, copies, kinds)) return best;
  const cost = costOf(patterns, copies);
  if (cost < best.cost - 1e-9) return { copies, cost, optimal, bound };
  return { ...best, optimal: best.optimal || (optimal && best.cost <= cost + 1e-9) };
}

function costOf(patterns: readonly Pattern[], copies: readonly number[]): number {
  return patterns.reduce((s, p, j) => s + p.price * (copies[j] as number), 0);
}

function covers(patterns: readonly Pattern[], copies: readonly number[], kinds: readonly Kind[]): boolean {
  return kinds.every((kind, k) => {
    let covered = 0;
    patterns.forEach((p, j) => {
      covered += (p.counts[k] as number) * (copies[j] as number);
    });
    return covered >= kind.count;
  });
}

/**
 * The relaxation's whole nodes, then for what they leave the pattern that covers the most dual worth per dollar,
 * until every pod is covered. Undefined when that breaks a limit, or when the solve's time runs out first.
 */
function roundUp(
  fractional: readonly number[],
  duals: readonly number[],
  patterns: readonly Pattern[],
  options: readonly NodeOption[],
  kinds: readonly Kind[],
  limits: readonly LimitRow[],
  expired: () => boolean,
): number[] | undefined {
  const copies = fractional.map((x) => Math.floor(x + 1e-9));
  const left = kinds.map((kind, k) => {
    let covered = 0;
    patterns.forEach((p, j) => {
      covered += (p.counts[k] as number) * (copies[j] as number);
    });
    return kind.count - covered;
  });
  while (left.some((r) => r > 0)) {
    if (expired()) return undefined;
    let pick = -1;
    let bestRate = -1;
    patterns.forEach((p, j) => {
      let worth = 0;
      let pods = 0;
      left.forEach((r, k) => {
        const n = Math.min(p.counts[k] as number, Math.max(0, r));
        worth += n * ((duals[k] as number) || 1e-9);
        pods += n;
      });
      const rate = pods > 0 ? worth / Math.max(p.price, 1e-12) : -1;
      if (rate > bestRate) {
        bestRate = rate;
        pick = j;
      }
    });
    if (pick < 0) return undefined;
    const p = patterns[pick] as Pattern;
    copies[pick] = (copies[pick] as number) + 1;
    left.forEach((r, k) => {
      left[k] = r - (p.counts[k] as number);
    });
  }
  return withinLimits(patterns, options, limits, copies) ? copies : undefined;
}

function withinLimits(
  patterns: readonly Pattern[],
  options: readonly NodeOption[],
  limits: readonly LimitRow[],
  copies: readonly number[],
): boolean {
  return limits.every((l) => {
    let used = 0;
    patterns.forEach((p, j) => {
      used += ((options[p.option] as NodeOption).capacity[l.resource] ?? 0) * (copies[j] as number);
    });
    return used <= l.available;
  });
}

function model(
  patterns: readonly Pattern[],
  options: readonly NodeOption[],
  kinds: readonly Kind[],
  limits: readonly LimitRow[],
  integer: boolean,
): string {
  const lines = ['Minimize', ' obj:'];
  terms(
    lines,
    patterns.map((p, j) => [p.price, j]),
  );
  lines.push('Subject To');
  kinds.forEach((kind, k) => {
    lines.push(` k${k}:`);
    terms(
      lines,
      patterns.flatMap((p, j) => ((p.counts[k] as number) > 0 ? [[p.counts[k] as number, j] as [number, number]] : [])),
    );
    lines.push(` >= ${kind.count}`);
  });
  for (const l of limits) {
    lines.push(` l${l.resource}:`);
    terms(
      lines,
      patterns.map((p, j) => [(options[p.option] as NodeOption).capacity[l.resource] ?? 0, j]),
    );
    lines.push(` <= ${num(l.available)}`);
  }
  lines.push('Bounds');
  patterns.forEach((p, j) => {
    // No optimal packing buys more copies of a pattern than it takes to cover the kind it holds most of.
    let most = 0;
    kinds.forEach((kind, k) => {
      const c = p.counts[k] as number;
      if (c > 0) most = Math.max(most, Math.ceil(kind.count / c));
    });
    lines.push(` 0 <= x${j} <= ${most}`);
  });
  if (integer) {
    lines.push('General');
    for (let j = 0; j < patterns.length; j += 16) {
      lines.push(
        ` ${patterns
          .slice(j, j + 16)
          .map((_, i) => `x${j + i}`)
          .join(' ')}`,
      );
    }
  }
  lines.push('End');
  return lines.join('\n');
}

function terms(lines: string[], list: [number, number][]): void {
  const nonzero = list.filter(([c]) => c !== 0);
  if (nonzero.length === 0) {
    lines.push('  0 x0');
    return;
  }
  for (let k = 0; k < nonzero.length; k += 8) {
    lines.push(
      `  ${nonzero
        .slice(k, k + 8)
        .map(([c, j]) => `+ ${num(c)} x${j}`)
        .join(' ')}`,
    );
  }
}

function num(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(15);
}
