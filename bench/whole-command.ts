// The whole command as a user runs it (issue 32): `karpless simulate -f FILE --output json` in a child process, timed
// from spawn to exit, against the solve inside it. The input file is written first (not timed). The child reports its
// CPU time and peak RSS on exit (usage-preload.cjs) and each solve's CPU time on its progress lines, so the row can
// set the command's CPU against the solve's, both measured in the one run, as the targets do
// (docs/performance.md, "Whole command").
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { Pod } from '../shared/api/kube';
import { distinctPods, karpenterDiversePods } from '../testkit/workloads';
import type { BenchMeasure, BenchMeasurement } from './measures';
import { WORKLOAD_SEED } from './workloads';

export const BIN = fileURLToPath(new URL('../cli/bin.mjs', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./usage-preload.cjs', import.meta.url));

export interface ChildRun {
  code: number | null;
  wallMs: number;
  /** The child's own CPU time and peak RSS, as it reported them on exit. */
  cpuMs: number;
  maxRssKiB: number;
  /** When simulate's "loaded N pods" line arrived, ms from spawn: the end of reading the input, near enough. */
  readMs?: number;
  stdout: string;
  stderr: string;
}

/** Runs `node cli/bin.mjs ...args` with the usage reporter loaded; wall time from spawn to exit. */
export function runCli(args: readonly string[]): Promise<ChildRun> {
  return runNode([BIN, ...args]);
}

/** Runs `node ...args` with the usage reporter loaded; wall time from spawn to exit. */
export function runNode(args: readonly string[]): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--require', PRELOAD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    let readMs: number | undefined;
    child.stderr.on('data', (b: Buffer) => {
      err.push(b);
      if (readMs === undefined && LOADED.test(Buffer.concat(err).toString('utf8')))
        readMs = performance.now() - started;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const stderr = Buffer.concat(err).toString('utf8');
      const usage = /karpless-usage (\{.*\})/.exec(stderr)?.[1];
      const { cpuMs, maxRssKiB } = usage ? (JSON.parse(usage) as { cpuMs: number; maxRssKiB: number }) : nan;
      const stdout = Buffer.concat(out).toString('utf8');
      resolve({ code, wallMs, cpuMs, maxRssKiB, ...(readMs === undefined ? {} : { readMs }), stdout, stderr });
    });
  });
}

const nan = { cpuMs: Number.NaN, maxRssKiB: Number.NaN };
/** simulate's progress line once the input is read (printed for 1,000 pods and more). */
const LOADED = /^loaded \d+ pods from /m;

/** The solves the command's progress lines report: "planned N NodeClaim(s) in W ms (C ms CPU)". */
export function solvesOf(stderr: string): { wallMs: number; cpuMs: number }[] {
  return [...stderr.matchAll(/planned \d+ NodeClaim\(s\) in (\d+) ms \((\d+) ms CPU\)/g)].map((m) => ({
    wallMs: Number(m[1]),
    cpuMs: Number(m[2]),
  }));
}

interface WholeCommandRow {
  name: string;
  description: string;
  pods: (seed: number) => Pod[];
  /** Target: the command's CPU ≤ `factor` × the solve's CPU + `plusMs`. */
  factor: number;
  plusMs: number;
  args?: string[];
}

export const DISTINCT_CONSTRAINTS = { zoneSpread: 0.15, antiAffinity: 0.1 } as const;

const ROWS: readonly WholeCommandRow[] = [
  {
    name: 'whole-command-karpenter-5k',
    description: "simulate -f on 5,000 pods of Karpenter's benchmark mix, embedded catalog, default NodePool",
    pods: (seed) => karpenterDiversePods(5000, seed),
    factor: 1.5,
    plusMs: 300,
  },
  {
    name: 'whole-command-shapes-20k',
    description: 'simulate -f on 20,000 pods in 12 shapes (15 % zone spread, 10 % hostname anti-affinity)',
    pods: (seed) => distinctPods(20_000, { ...DISTINCT_CONSTRAINTS, seed, shapes: 12 }),
    factor: 1.5,
    plusMs: 300,
  },
  {
    name: 'whole-command-distinct-20k',
    description: 'simulate -f on 20,000 pods with distinct requests (15 % zone spread, 10 % hostname anti-affinity)',
    pods: (seed) => distinctPods(20_000, { ...DISTINCT_CONSTRAINTS, seed }),
    factor: 1.5,
    plusMs: 300,
  },
  {
    name: 'whole-command-distinct-50k',
    description: 'simulate -f on 50,000 unconstrained pods with distinct requests',
    pods: (seed) => distinctPods(50_000, { seed }),
    factor: 2,
    plusMs: 500,
  },
];

/** Pods as the multi-document YAML a user would give (`kubectl get -o yaml` style: no anchors). */
export function podsYaml(pods: readonly Pod[]): string {
  return pods
    .map((p) => stringify({ apiVersion: 'v1', kind: 'Pod', ...p }, { aliasDuplicateObjects: false }))
    .join('---\n');
}

async function measureRow(row: WholeCommandRow): Promise<BenchMeasurement> {
  const dir = mkdtempSync(join(tmpdir(), 'karpless-whole-'));
  try {
    const file = join(dir, 'pods.yaml');
    writeFileSync(file, podsYaml(row.pods(WORKLOAD_SEED)));
    await runCli(['--version']); // builds the CLI bundle first if a source changed, so the row does not pay for it
    const run = await runCli(['simulate', '-f', file, '--output', 'json', ...(row.args ?? [])]);
    const solves = solvesOf(run.stderr);
    const solveCpuMs = solves.reduce((n, s) => n + s.cpuMs, 0);
    const limitMs = row.factor * solveCpuMs + row.plusMs;
    const report = run.code === 0 ? (JSON.parse(run.stdout) as { summary: Record<string, number> }) : undefined;
    const s = report?.summary;
    return {
      name: row.name,
      description: row.description,
      target: `CPU ≤ ${row.factor} × solve CPU + ${row.plusMs} ms`,
      value: Math.round(run.cpuMs) / 1000,
      unit: 's',
      pass: run.code === 0 && solves.length > 0 && run.cpuMs <= limitMs,
      wallMs: run.wallMs,
      cpuMs: run.cpuMs,
      detail:
        `wall ${(run.wallMs / 1000).toFixed(2)} s, CPU ${(run.cpuMs / 1000).toFixed(2)} s, peak RSS ${Math.round(run.maxRssKiB / 1024)} MiB; ` +
        `solve ${solves.map((x) => `${x.wallMs} ms wall / ${x.cpuMs} ms CPU`).join(' + ')} ` +
        `(${Math.round((100 * solveCpuMs) / run.cpuMs)} % of the CPU; limit ${Math.round(limitMs)} ms); ` +
        (s
          ? `${s.scheduledPods}/${s.pods} pods, ${s.nodeClaims} NodeClaims, $${s.costPerHour?.toFixed(4)}/h`
          : `exit ${run.code}`),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const WHOLE_COMMAND_MEASURES: readonly BenchMeasure[] = ROWS.map((row) => ({
  name: row.name,
  description: row.description,
  run: () => measureRow(row),
}));
