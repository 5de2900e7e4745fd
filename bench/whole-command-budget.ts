// `--time-budget` bounds the whole command (issue 32): from the end of reading the input to the last line of output.
// `karpless simulate -f FILE --time-budget 10s --output json` on 50,000 pods with distinct requests (the constrained
// mix of distinct-20k) in a child process; the row times it from simulate's "loaded N pods" line (printed once the
// input is read) to the child's exit, and checks the report says what the budget deferred (docs/performance.md,
// "Whole command").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distinctPods } from '../testkit/workloads';
import type { BenchMeasure, BenchMeasurement } from './measures';
import { DISTINCT_CONSTRAINTS, podsYaml, runCli } from './whole-command';
import { WORKLOAD_SEED } from './workloads';

const NAME = 'whole-command-budget-50k';
const DESCRIPTION =
  'simulate -f --time-budget 10s on 50,000 pods with distinct requests (15 % zone spread, 10 % hostname anti-affinity)';
const BUDGET_MS = 10_000;
/** The target: from the end of reading to exit, at most the budget and this much more. */
const SLACK_MS = 500;

interface BudgetReport {
  summary: { pods: number; scheduledPods: number; nodeClaims: number };
  deferred?: unknown[];
  unschedulable: unknown[];
}

async function measure(): Promise<BenchMeasurement> {
  const dir = mkdtempSync(join(tmpdir(), 'karpless-budget-'));
  try {
    const file = join(dir, 'pods.yaml');
    writeFileSync(file, podsYaml(distinctPods(50_000, { ...DISTINCT_CONSTRAINTS, seed: WORKLOAD_SEED })));
    await runCli(['--version']); // builds the CLI bundle first if a source changed, so the row does not pay for it
    const run = await runCli(['simulate', '-f', file, '--output', 'json', '--time-budget', `${BUDGET_MS / 1000}s`]);
    const afterReadMs = run.readMs === undefined ? Number.NaN : run.wallMs - run.readMs;
    const report = run.code === 0 ? (JSON.parse(run.stdout) as BudgetReport) : undefined;
    const deferred = report?.deferred;
    const s = report?.summary;
    return {
      name: NAME,
      description: DESCRIPTION,
      target: `read to exit ≤ ${(BUDGET_MS + SLACK_MS) / 1000} s, deferred pods reported`,
      value: Math.round(afterReadMs) / 1000,
      unit: 's',
      pass: report !== undefined && Array.isArray(deferred) && afterReadMs <= BUDGET_MS + SLACK_MS,
      wallMs: run.wallMs,
      cpuMs: run.cpuMs,
      detail:
        `reading ${((run.readMs ?? Number.NaN) / 1000).toFixed(2)} s, then ${(afterReadMs / 1000).toFixed(2)} s to exit; ` +
        `CPU ${(run.cpuMs / 1000).toFixed(2)} s, peak RSS ${Math.round(run.maxRssKiB / 1024)} MiB; ` +
        (s
          ? `${s.scheduledPods}/${s.pods} pods planned, ${deferred?.length ?? 'no'} deferred, ${report?.unschedulable.length} unschedulable, ${s.nodeClaims} NodeClaims`
          : `exit ${run.code}`),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const WHOLE_COMMAND_BUDGET_MEASURE: BenchMeasure = { name: NAME, description: DESCRIPTION, run: measure };
