// `karpless --help` as the README's quick start runs it: `karpless` on PATH is a link to cli/bin.mjs (npm link, or
// `npm install -g .`), so the command is node starting cli/bin.mjs. The median of several runs, each a fresh process,
// against 300 ms (issue 32; docs/performance.md, "Whole command").
import type { BenchMeasure } from './measures';
import { runCli } from './whole-command';

const RUNS = 7;
const TARGET_MS = 300;

export const CLI_HELP_MEASURE: BenchMeasure = {
  name: 'cli-help',
  description: '`karpless --help` as installed by the README (node running cli/bin.mjs), median of 7 runs',
  async run() {
    await runCli(['--help']); // a first run builds the CLI bundle if a source changed
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await runCli(['--help']));
    const walls = runs.map((r) => r.wallMs).sort((a, b) => a - b);
    const median = walls[Math.floor(walls.length / 2)] ?? Number.NaN;
    const cpu = runs.map((r) => r.cpuMs).sort((a, b) => a - b)[Math.floor(RUNS / 2)] ?? Number.NaN;
    return {
      name: 'cli-help',
      description: this.description,
      target: `median wall ≤ ${TARGET_MS} ms`,
      value: Math.round(median),
      unit: 'ms',
      pass: runs.every((r) => r.code === 0) && median <= TARGET_MS,
      wallMs: median,
      cpuMs: cpu,
      detail: `walls ${walls.map((w) => Math.round(w)).join(', ')} ms; median CPU ${Math.round(cpu)} ms`,
    };
  },
};
