// Where a solve with a tiny budget stops on a big batch: 20k distinct-request pods (15 % zone spread, 10 % hostname
// anti-affinity), budgets of 10–250 ms on the process's CPU clock (load on the machine does not stretch it), each
// solved a few times in one process, the first run cold. docs/performance.md (A deadline that holds) has the figures.
// Run: npx tsx bench/small-budget-stops.ts [--budgets 10,50,100,250] [--runs 3]

import { loadavg } from 'node:os';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import { loadLpSolver, solve } from '../shared/scheduling';
import { distinctPods } from '../testkit/workloads';
import { flagValue } from './flag-value';
import { distinctNodePool, WORKLOAD_SEED } from './workloads';

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: string) => flagValue(args, name, fallback);
  const budgets = opt('--budgets', '10,50,100,250').split(',').map(Number);
  const runs = Number(opt('--runs', '3'));
  await loadLpSolver();
  const { nodePool, nodeClass } = distinctNodePool();
  const types = instanceTypesFor(await loadCatalog(), nodeClass);
  const pods = distinctPods(20_000, { zoneSpread: 0.15, antiAffinity: 0.1, seed: WORKLOAD_SEED });
  console.log('| budget (ms) | limit: +5 % +100 ms | CPU per run (ms) | planned | deferred |');
  console.log('|---|---|---|---|---|');
  for (const budget of budgets) {
    const spent: number[] = [];
    let planned = 0;
    let deferred = 0;
    for (let i = 0; i < runs; i++) {
      const started = cpuMs();
      const r = solve({
        pods,
        nodePools: [nodePool],
        instanceTypes: new Map([[nodePool.metadata.name, types]]),
        options: { timeoutMs: budget, now: cpuMs },
      });
      spent.push(cpuMs() - started);
      planned = r.nodeClaims.reduce((n, c) => n + c.pods.length, 0);
      deferred = r.deferred?.length ?? 0;
    }
    console.log(
      `| ${budget} | ${budget * 1.05 + 100} | ${spent.map((ms) => ms.toFixed(0)).join(', ')} | ${planned} | ${deferred} |`,
    );
  }
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
