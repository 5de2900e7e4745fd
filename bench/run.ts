// `npm run bench` (bench/main.ts): runs the scheduling benchmark and the other measures, one fresh child process each
// so each peak RSS is its own, and checks the results against the targets.
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { CommandContext } from '../cli/commands/index';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../cli/io';
import { type BenchMeasure, type BenchMeasurement, MEASURES } from './measures';
import { type BenchReport, renderBenchTable } from './report-table';
import { checkTargets, type Measurement } from './targets';
import { WORKLOADS, type Workload } from './workloads';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const MEASURE_CHILD = fileURLToPath(new URL('./measure-child.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
const DEFAULT_TIMEOUT_MS = 600_000;

/** Runs one workload in a child process; resolves with its measurement or rejects with its stderr. */
export function runWorkloadInChild(
  workload: Workload,
  catalog?: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<Measurement> {
  return runJsonChild<Measurement>([CHILD, workload.name, catalog ?? ''], timeoutMs);
}

/** Runs one measure (disruption, pipeline latency, a function bundle) in a child process of its own. */
export function runMeasureInChild(measure: BenchMeasure, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<BenchMeasurement> {
  return runJsonChild<BenchMeasurement>([MEASURE_CHILD, measure.name], timeoutMs);
}

/** Spawns `node --import tsx ARGS` and parses the last line of its stdout as JSON. */
function runJsonChild<T>(args: string[], timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, ...args], {
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
        reject(new Error(childFailure(stderr, code)));
        return;
      }
      try {
        resolve(JSON.parse(line) as T);
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
  runMeasure: (m: BenchMeasure, timeoutMs?: number) => Promise<BenchMeasurement> = runMeasureInChild,
): Promise<void> {
  const selected = opts.workload?.length ? WORKLOADS.filter((w) => opts.workload?.includes(w.name)) : WORKLOADS;
  const measures = opts.workload?.length ? MEASURES.filter((m) => opts.workload?.includes(m.name)) : MEASURES;
  const known = [...WORKLOADS.map((w) => w.name), ...MEASURES.map((m) => m.name)];
  const unknown = (opts.workload ?? []).filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    ctx.io.err(`unknown workload(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
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
    command: `npm run bench${opts.workload?.length ? ` -- --workload ${opts.workload.join(' ')}` : ''}`,
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
  const total = selected.length + measures.length;
  for (const [i, workload] of selected.entries()) {
    ctx.io.err(`[${i + 1}/${total}] ${workload.name}: ${workload.description} ...`);
    try {
      const checked = checkTargets(workload, await run(workload, opts.catalog, timeoutMs));
      report.results.push(checked);
      ctx.io.err(
        `    ${Math.round(checked.wallMs)} ms (${Math.round(checked.cpuMs ?? 0)} ms CPU, load ${checked.loadAverage?.[0] ?? '-'}), ${Math.round(checked.podsPerSecond)} pods/s, ${checked.nodeCount} nodes: ${checked.pass ? 'pass' : 'FAIL'}`,
      );
    } catch (err) {
      report.failures.push({ workload: workload.name, error: err instanceof Error ? err.message : String(err) });
      ctx.io.err(`    failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const [i, measure] of measures.entries()) {
    ctx.io.err(`[${selected.length + i + 1}/${total}] ${measure.name}: ${measure.description} ...`);
    try {
      const m = await runMeasure(measure, timeoutMs);
      report.measures = [...(report.measures ?? []), m];
      ctx.io.err(
        `    ${m.value} ${m.unit} (${Math.round(m.wallMs)} ms wall, ${Math.round(m.cpuMs)} ms CPU): ${m.pass ? 'pass' : 'FAIL'}`,
      );
    } catch (err) {
      report.failures.push({ workload: measure.name, error: err instanceof Error ? err.message : String(err) });
      ctx.io.err(`    failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  report.pass =
    report.failures.length === 0 && report.results.every((r) => r.pass) && (report.measures ?? []).every((m) => m.pass);
  ctx.io.out(opts.json ? JSON.stringify(report, null, 2) : renderBenchTable(report));
  ctx.result.code = report.pass ? EXIT_OK : EXIT_FAILURE;
}

/** Why a child failed, in one line: the thrown error's own message when Node printed one (an uncaught error's stack
 * tail says only where it was thrown), else the tail of its stderr. */
export function childFailure(stderr: string, code: number | null): string {
  const lines = stderr.trim().split('\n');
  const thrown = lines.find((l) => /^[A-Za-z]*Error: /.test(l));
  if (thrown) return thrown;
  return lines.slice(-5).join(' | ') || `exited with code ${code}`;
}
