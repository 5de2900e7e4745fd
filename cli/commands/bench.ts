// `karpless bench`: runs the scheduling benchmark, one fresh child process per workload so each peak RSS is its own,
// and checks the results against the targets.
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { checkTargets, type Measurement } from '../../bench/targets';
import { WORKLOADS, type Workload } from '../../bench/workloads';
import { type BenchReport, renderBenchTable } from '../format/bench-table';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import type { CommandContext, RegisterCommand } from './index';

const CHILD = fileURLToPath(new URL('../../bench/child.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
const DEFAULT_TIMEOUT_MS = 600_000;

/** Runs one workload in a child process; resolves with its measurement or rejects with its stderr. */
export function runWorkloadInChild(
  workload: Workload,
  catalog?: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CHILD, workload.name, catalog ?? ''], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new Error(`did not finish within ${Math.round(timeoutMs / 1000)} s`));
        return;
      }
      const line = stdout.trim().split('\n').pop();
      if (code !== 0 || !line) {
        reject(new Error(stderr.trim().split('\n').slice(-5).join(' | ') || `exited with code ${code}`));
        return;
      }
      try {
        resolve(JSON.parse(line) as Measurement);
      } catch {
        reject(new Error(`unreadable output: ${line.slice(0, 200)}`));
      }
    });
  });
}

export interface BenchOptions {
  json?: boolean;
  workload?: string[];
  catalog?: string;
  timeout?: string;
}

export async function runBench(
  ctx: CommandContext,
  opts: BenchOptions,
  run: (w: Workload, catalog?: string, timeoutMs?: number) => Promise<Measurement> = runWorkloadInChild,
): Promise<void> {
  const selected = opts.workload?.length ? WORKLOADS.filter((w) => opts.workload?.includes(w.name)) : WORKLOADS;
  const unknown = (opts.workload ?? []).filter((n) => !WORKLOADS.some((w) => w.name === n));
  if (unknown.length > 0) {
    ctx.io.err(`unknown workload(s): ${unknown.join(', ')}; known: ${WORKLOADS.map((w) => w.name).join(', ')}`);
    ctx.result.code = EXIT_USAGE;
    return;
  }
  const timeoutMs = opts.timeout === undefined ? DEFAULT_TIMEOUT_MS : Number(opts.timeout) * 1000;
  if (!(timeoutMs > 0)) {
    ctx.io.err(`--timeout: "${opts.timeout}" is not a positive number of seconds`);
    ctx.result.code = EXIT_USAGE;
    return;
  }
  const report: BenchReport = {
    command: `karpless bench${opts.workload?.length ? ` --workload ${opts.workload.join(' ')}` : ''}`,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
    },
    results: [],
    failures: [],
    pass: true,
  };
  for (const [i, workload] of selected.entries()) {
    ctx.io.err(`[${i + 1}/${selected.length}] ${workload.name}: ${workload.description} ...`);
    try {
      const checked = checkTargets(workload, await run(workload, opts.catalog, timeoutMs));
      report.results.push(checked);
      ctx.io.err(
        `    ${Math.round(checked.wallMs)} ms, ${Math.round(checked.podsPerSecond)} pods/s, ${checked.nodeCount} nodes: ${checked.pass ? 'pass' : 'FAIL'}`,
      );
    } catch (err) {
      report.failures.push({ workload: workload.name, error: err instanceof Error ? err.message : String(err) });
      ctx.io.err(`    failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  report.pass = report.failures.length === 0 && report.results.every((r) => r.pass);
  ctx.io.out(opts.json ? JSON.stringify(report, null, 2) : renderBenchTable(report));
  ctx.result.code = report.pass ? EXIT_OK : EXIT_FAILURE;
}

export const registerBench: RegisterCommand = (program: Command, ctx: CommandContext) => {
  program
    .command('bench')
    .description('Benchmark the scheduler: throughput, wall time, peak RSS and cost against the LP lower bound')
    .option('--json', 'print the report as JSON')
    .option('--workload <names...>', `run only these workloads (${WORKLOADS.map((w) => w.name).join(', ')})`)
    .option('--catalog <file>', 'instance-type catalog for the real-catalog workloads')
    .option('--timeout <seconds>', 'give up on a workload after this long', String(DEFAULT_TIMEOUT_MS / 1000))
    .action(async (opts: BenchOptions) => runBench(ctx, opts));
};
