// Benchmark measurements and the pass/fail check against each workload's targets.
import type { Workload } from './workloads';

export interface Measurement {
  workload: string;
  description: string;
  pods: number;
  scheduledPods: number;
  wallMs: number;
  podsPerSecond: number;
  /** CPU time (user + system) of the solve: on a busy machine, wall time minus waiting for a core. */
  cpuMs?: number;
  /** A second solve, of other pods from the same mix, once the JIT has warmed up. */
  warmWallMs?: number;
  /** The comparison solve's CPU time (workloads with `second: 'compare'`), and cpuMs over it. */
  compareCpuMs?: number;
  cpuRatio?: number;
  /** The 1, 5 and 15 minute load averages when the solve ended: on a shared machine, read wall times beside them. */
  loadAverage?: number[];
  peakRssBytes: number;
  nodeCount: number;
  costPerHour: number;
  lowerBoundPerHour: number;
  /** costPerHour / lowerBoundPerHour; undefined when no bound could be computed. */
  costRatio?: number;
}

export interface CheckedMeasurement extends Measurement {
  checks: { target: string; pass: boolean }[];
  pass: boolean;
}

export function checkTargets(workload: Workload, m: Measurement): CheckedMeasurement {
  const t = workload.targets;
  const checks: { target: string; pass: boolean }[] = [];
  if (t.minPodsPerSecond !== undefined) {
    checks.push({ target: `≥ ${t.minPodsPerSecond} pods/s`, pass: m.podsPerSecond >= t.minPodsPerSecond });
  }
  if (t.maxWallMs !== undefined) checks.push({ target: `≤ ${t.maxWallMs / 1000} s`, pass: m.wallMs <= t.maxWallMs });
  if (t.maxCpuMs !== undefined) {
    checks.push({
      target: `≤ ${t.maxCpuMs / 1000} s CPU`,
      pass: m.cpuMs !== undefined && m.cpuMs <= t.maxCpuMs,
    });
  }
  if (t.maxCpuRatio !== undefined) {
    checks.push({
      target: `CPU ≤ ${t.maxCpuRatio} × ${workload.compareLabel ?? 'comparison'}`,
      pass: m.cpuRatio !== undefined && m.cpuRatio <= t.maxCpuRatio,
    });
  }
  checks.push({ target: `RSS ≤ ${t.maxRssBytes / 2 ** 30} GiB`, pass: m.peakRssBytes <= t.maxRssBytes });
  if (t.maxCostRatio !== undefined) {
    checks.push({
      target: `cost ≤ ${t.maxCostRatio} × LB`,
      pass: m.costRatio !== undefined && m.costRatio <= t.maxCostRatio,
    });
  }
  checks.push({ target: 'all pods scheduled', pass: m.scheduledPods === m.pods });
  return { ...m, checks, pass: checks.every((c) => c.pass) };
}
