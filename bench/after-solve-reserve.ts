// What a provisioner invocation spends after its solve, measured through the local pipeline: the real handler
// (middy, Powertools, validation), DynamoDB on dynalite, the simulated cluster and cloud. Per invocation that solved:
// its wall time less the solve's own (the SolveDuration metric), by NodeClaims launched. It sizes the handler's
// AFTER_SOLVE_RESERVE together with the AWS calls' latencies, which a local run does not have (docs/performance.md,
// A deadline that holds). Run: npx tsx bench/after-solve-reserve.ts [--pods 20,200,1000] [--seed 1]

import { loadavg } from 'node:os';
import type { LocalPipeline } from '../local';
import { LabelArch, LabelCapacityType, LabelOS } from '../shared/api/labels';
import { createRng } from '../shared/sim';
import { makePod, testNodePool } from '../testkit/bed';
import { benchPipeline } from './bench-pipeline';
import { flagValue } from './flag-value';

export interface AfterSolveRow {
  pods: number;
  /** Invocations that solved. */
  invocations: number;
  claims: number;
  /** Sum over those invocations, wall ms. */
  handlerMs: number;
  solveMs: number;
  /** handlerMs − solveMs: everything after (and around) the solve. */
  afterMs: number;
}

export async function measureAfterSolve(pods: number, seed = 1): Promise<AfterSolveRow> {
  const rng = createRng(seed);
  const pool = testNodePool('default', [
    { key: LabelOS, operator: 'In', values: ['linux'] },
    { key: LabelArch, operator: 'In', values: ['amd64'] },
    { key: LabelCapacityType, operator: 'In', values: ['on-demand'] },
  ]);
  // Each SolveDuration flush belongs to the invocation under way: the one the pipeline records next.
  const solves = new Map<number, number>();
  const p: LocalPipeline = await benchPipeline(pool, seed, {
    onMetrics: (record) => {
      if (typeof record.SolveDuration === 'number') solves.set(p.invocations.length, record.SolveDuration);
    },
  });
  try {
    const keys: string[] = [];
    for (let i = 0; i < pods; i++) {
      // Distinct requests, a node for every few pods: the plan launches many claims.
      const pod = makePod(`batch-${i}`, { cpu: `${500 + rng.int(3500)}m`, memory: `${512 + rng.int(7680)}Mi` });
      p.forwarder.addPod(pod);
      keys.push(`default/${pod.metadata.name}`);
    }
    const done = async () => keys.every((k) => p.sim.getPod(k)?.spec.nodeName);
    if (!(await p.runUntil(done, 30 * 60_000))) throw new Error(`${pods} pods: still pending after 30 minutes`);
  } finally {
    await p.stop();
  }
  const row: AfterSolveRow = {
    pods,
    invocations: 0,
    claims: p.cloud.creates.length,
    handlerMs: 0,
    solveMs: 0,
    afterMs: 0,
  };
  p.invocations.forEach((inv, i) => {
    const solve = solves.get(i);
    if (inv.fn !== 'provisioner' || solve === undefined) return;
    row.invocations++;
    row.handlerMs += inv.handlerMs;
    row.solveMs += solve;
  });
  row.afterMs = row.handlerMs - row.solveMs;
  return row;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: string) => flagValue(args, name, fallback);
  const sizes = opt('--pods', '20,200,1000').split(',').map(Number);
  const seed = Number(opt('--seed', '1'));
  console.log(
    '| pods | invocations that solved | claims launched | handler (ms) | solve (ms) | after the solve (ms) | per claim (ms) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const pods of sizes) {
    const r = await measureAfterSolve(pods, seed);
    console.log(
      `| ${r.pods} | ${r.invocations} | ${r.claims} | ${r.handlerMs.toFixed(0)} | ${r.solveMs.toFixed(0)} | ${r.afterMs.toFixed(0)} | ${(r.afterMs / Math.max(1, r.claims)).toFixed(1)} |`,
    );
  }
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
