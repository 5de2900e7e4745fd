// The benchmark report: one row per workload with its measurements and its targets' verdict.

import { formatPrice, renderTable } from '../cli/format/table';
import type { BenchMeasurement } from './measures';
import type { CheckedMeasurement } from './targets';

export interface BenchReport {
  command: string;
  machine: { cpus: number; cpuModel: string; node: string; platform: string };
  results: CheckedMeasurement[];
  /** The other measures: disruption (sweep decision time, cost after a scale-down), the pipeline's decision latency
   * and each function bundle. */
  measures?: BenchMeasurement[];
  failures: { workload: string; error: string }[];
  pass: boolean;
}

const mib = (bytes: number): string => `${Math.round(bytes / 2 ** 20)} MiB`;
/** The 1-minute load average when the row ended: wall times on a shared machine are read beside it. */
const load = (avg: number[] | undefined): string => (avg?.[0] === undefined ? '-' : avg[0].toFixed(1));

function verdict(m: CheckedMeasurement): string {
  if (m.pass) return 'pass';
  return `FAIL (${m.checks
    .filter((c) => !c.pass)
    .map((c) => c.target)
    .join('; ')})`;
}

export function renderBenchTable(report: BenchReport): string {
  const rows = report.results.map((m) => [
    m.workload,
    m.pods,
    m.scheduledPods,
    Math.round(m.wallMs),
    m.cpuMs === undefined ? '-' : Math.round(m.cpuMs),
    Math.round(m.podsPerSecond),
    m.warmWallMs === undefined ? '-' : Math.round(m.warmWallMs),
    mib(m.peakRssBytes),
    m.nodeCount,
    formatPrice(m.costPerHour),
    formatPrice(m.lowerBoundPerHour),
    m.costRatio === undefined ? '-' : m.costRatio.toFixed(3),
    m.cpuRatio === undefined ? '-' : m.cpuRatio.toFixed(2),
    load(m.loadAverage),
    verdict(m),
  ]);
  const right = (header: string) => ({ header, align: 'right' as const });
  const out: string[] = [];
  // A run of measures only has no scheduling rows: leave that table out.
  if (rows.length > 0 || !report.measures?.length)
    out.push(
      renderTable(
        [
          'WORKLOAD',
          right('PODS'),
          right('SCHEDULED'),
          right('WALL MS'),
          right('CPU MS'),
          right('PODS/S'),
          right('WARM MS'),
          right('PEAK RSS'),
          right('NODES'),
          right('COST/H'),
          right('LB/H'),
          right('RATIO'),
          right('CPU ×'),
          right('LOAD'),
          'RESULT',
        ],
        rows,
      ),
    );
  if (report.measures?.length) {
    if (out.length > 0) out.push('');
    out.push(
      renderTable(
        ['MEASURE', right('VALUE'), 'TARGET', right('WALL MS'), right('CPU MS'), right('LOAD'), 'RESULT', 'DETAIL'],
        report.measures.map((m) => [
          m.name,
          `${m.value} ${m.unit}`,
          m.target,
          Math.round(m.wallMs),
          Math.round(m.cpuMs),
          load(m.loadAverage),
          m.pass ? 'pass' : 'FAIL',
          m.detail,
        ]),
      ),
    );
  }
  for (const f of report.failures) out.push(`${f.workload}: FAILED TO RUN: ${f.error}`);
  out.push(
    '',
    `${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node} (${report.machine.platform})`,
    `Overall: ${report.pass ? 'PASS' : 'FAIL'}`,
  );
  return out.join('\n');
}
