// The time-budget measure of `npm run bench` (issue 14): `karpless simulate --time-budget` on a batch far bigger than
// its budget, through the same runSimulation the command runs. It times each solve on the wall clock, as the
// budget is kept (docs/performance.md, "A deadline that holds"). Target: every solve stops within 5 % of its budget
// plus 100 ms, and the budget did cut the batch short (pods were deferred), or the row would measure nothing. The
// 100 ms row is the one the solver's setup reserve exists for: reading 20k distinct pods alone takes longer than the
// budget, so only stopping the setup early keeps it (docs/performance.md, "A deadline that holds").
import { loadavg } from 'node:os';
import { loadCatalog } from '../shared/catalog';
import { loadLpSolver } from '../shared/scheduling';
import { runSimulation, type SimulationEngine } from '../shared/sim';
import { catalogEngine } from '../shared/sim/default-engine';
import { distinctPods } from '../testkit/workloads';
import type { BenchMeasure, BenchMeasurement } from './measures';
import { timed } from './timed';
import { distinctNodePool, WORKLOAD_SEED } from './workloads';

const PODS = 20_000;

/** The most a solve may run past a budget: 5 % of it plus 100 ms (issue 14). */
export const budgetLimitMs = (budgetMs: number): number => budgetMs * 1.05 + 100;

/** The row passes when every solve stopped within the limit and the budget did cut the batch short. */
export function keptBudget(budgetMs: number, solveMs: readonly number[], deferred: number): boolean {
  return solveMs.length > 0 && solveMs.every((ms) => ms <= budgetLimitMs(budgetMs)) && deferred > 0;
}

/** The row for one budget: `time-budget-20k` for 0.35 s, `time-budget-20k-100ms` for 100 ms. */
export function timeBudgetMeasure(budgetMs: number, name: string): BenchMeasure {
  const description = `simulate --time-budget ${budgetMs / 1000}s on ${PODS} distinct-request pods (15 % zone spread, 10 % anti-affinity)`;
  return { name, description, run: () => measureBudget(budgetMs, name, description) };
}

export const TIME_BUDGET_MEASURES: readonly BenchMeasure[] = [
  // 350 ms: the 20k batch's whole solve now takes about 0.6 s, and a budget it fits in measures nothing; this one
  // stops it during placement, not in the setup (docs/performance.md, "Targets").
  timeBudgetMeasure(350, 'time-budget-20k'),
  timeBudgetMeasure(100, 'time-budget-20k-100ms'),
];

async function measureBudget(budgetMs: number, name: string, description: string): Promise<BenchMeasurement> {
  await loadLpSolver();
  const base = catalogEngine(await loadCatalog());
  const solveMs: number[] = [];
  const engine: SimulationEngine = {
    ...base,
    solve: (input) => {
      const started = performance.now();
      const result = base.solve(input);
      solveMs.push(performance.now() - started);
      return result;
    },
    // The simulation's LP bound on the partial plan is not what this row measures.
    lowerBound: () => 0,
  };
  const { nodePool, nodeClass } = distinctNodePool();
  const pods = distinctPods(PODS, { zoneSpread: 0.15, antiAffinity: 0.1, seed: WORKLOAD_SEED });
  const { result, wallMs, cpuMs } = await timed(() =>
    runSimulation({ pods, nodePools: [nodePool], nodeClasses: [nodeClass] }, engine, { timeBudgetMs: budgetMs }),
  );
  const load = loadavg().map((l) => l.toFixed(2));
  const worst = Math.max(0, ...solveMs);
  const limit = budgetLimitMs(budgetMs);
  const deferred = result.deferred?.length ?? 0;
  return {
    name,
    description,
    target: `solve ≤ ${limit / 1000} s (budget + 5 % + 100 ms), pods deferred`,
    value: Math.round(worst) / 1000,
    unit: 's',
    pass: keptBudget(budgetMs, solveMs, deferred),
    wallMs,
    cpuMs,
    detail:
      `budget ${budgetMs} ms; ${solveMs.length} solve(s) took ${solveMs.map((ms) => Math.round(ms)).join(', ')} ms; ` +
      `${result.summary.scheduledPods} pods planned, ${deferred} deferred, ${result.unschedulable.length} unschedulable; ` +
      `load average ${load.join(' ')}`,
  };
}
