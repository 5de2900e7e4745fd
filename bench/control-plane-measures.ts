// The control plane's measures in `npm run bench` (issue 5):
// - the local pipeline's decision latency, from a pending pod's delivery to its CreateFleet call on warm handlers:
//   target p99 ≤ 1.5 s beyond the batching window (bench/pipeline-latency.ts);
// - each deployed function's bundle, built as the stack builds it: its own code ≤ 600 KiB minified and its cold
//   import ≤ 200 ms (bench/bundle-size.ts; why the AWS SDK is counted apart: docs/architecture.md).
// The modules they need are imported when a measure runs, so a child running another measure does not load them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUNCTION_NAMES } from '../stacks/functions';
import { type BenchMeasure, timed } from './measures';

const LATENCY_TARGET_MS = 1500;
const IMPORT_RUNS = 5;

const pipelineLatency: BenchMeasure = {
  name: 'pipeline-latency',
  description: 'local pipeline, warm handlers: a pending pod delivered to the provisioner → its CreateFleet call',
  run: async () => {
    const { measurePipelineLatency } = await import('./pipeline-latency');
    const { result: f, wallMs, cpuMs } = await timed(() => measurePipelineLatency());
    return {
      name: pipelineLatency.name,
      description: pipelineLatency.description,
      target: `p99 ≤ ${LATENCY_TARGET_MS} ms beyond the window`,
      value: Math.round(f.podMs.p99),
      unit: 'ms',
      pass: f.pods > 0 && f.podMs.p99 <= LATENCY_TARGET_MS,
      wallMs,
      cpuMs,
      detail:
        `${f.pods} pods in ${f.batches} invocations: p50 ${f.podMs.p50.toFixed(0)} ms, p90 ${f.podMs.p90.toFixed(0)} ms, ` +
        `max ${f.podMs.max.toFixed(0)} ms; batching window ${f.windowMs.p50.toFixed(0)} ms (virtual)`,
    };
  },
};

function bundleMeasure(fn: string): BenchMeasure {
  const name = `bundle-${fn}`;
  const description = `the ${fn} function's Lambda bundle as the stack builds it, and its cold import`;
  return {
    name,
    description,
    run: async () => {
      const b = await import('./bundle-size');
      const dir = mkdtempSync(join(tmpdir(), `karpless-${name}-`));
      try {
        const { result: f, wallMs, cpuMs } = await timed(() => b.measureBundle(fn, join(dir, fn), IMPORT_RUNS));
        const [lo, hi] = f.coldImportRangeMs.map((ms) => ms.toFixed(0));
        return {
          name,
          description,
          target: `own code ≤ ${b.OWN_CODE_LIMIT_BYTES / 1024} KiB, import ≤ ${b.IMPORT_LIMIT_MS} ms`,
          value: Math.round(f.restBytes / 1024),
          unit: 'KiB',
          pass: b.meetsSizeTarget(f) && b.meetsImportTarget(f),
          wallMs,
          cpuMs,
          detail:
            `import ${f.coldImportMs.toFixed(0)} ms (median of ${IMPORT_RUNS}, ${lo}–${hi}); index.mjs ${b.kib(f.bundleBytes)} ` +
            `with ${b.kib(f.sdkBytes)} of AWS SDK, ${b.kib(f.deflatedBytes)} deflated; assets ${b.kib(f.assetBytes)}`,
        };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export const CONTROL_PLANE_MEASURES: readonly BenchMeasure[] = [pipelineLatency, ...FUNCTION_NAMES.map(bundleMeasure)];
