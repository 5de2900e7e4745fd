// A scenario's work estimate, computed at parse time so a scenario that would run for tens of minutes is refused at
// once (docs/scenarios.md, "Size limits"). The run loop visits one instant per sweep, per garbage collection and per
// step firing. An instant costs a few milliseconds with one pod and grows about as the square root of the pods (its
// sweeps and passes work per node and per group of like pods), so the estimate is (1 + √peak pods) × instants.
import type { ManifestSet } from '../../api/manifest-set';
import type { ScenarioStep } from './types';

/** The run loop's garbage collection period (shared/sim/scenario/runner.ts). */
export const GC_EVERY_MS = 2 * 60_000;

export interface WorkEstimate {
  /** Pods the scenario can hold at once: each workload at its largest replica count, plus bare and seeded pods. */
  peakPods: number;
  /** Instants the run loop visits: sweeps, garbage collections and step firings. */
  instants: number;
  /** (1 + √peakPods) × instants, rounded up. */
  work: number;
}

/** Estimates the run's work; `firings` counts every repeat of an `every` step. */
export function estimateWork(
  s: { until: number; sweepEvery: number; steps: ScenarioStep[] },
  firings: number,
): WorkEstimate {
  const peakPods = estimatePeakPods(s.steps);
  const sweeps = s.sweepEvery > 0 ? Math.floor(s.until / s.sweepEvery) : 0;
  const instants = sweeps + Math.floor(s.until / GC_EVERY_MS) + firings;
  return { peakPods, instants, work: Math.ceil((1 + Math.sqrt(peakPods)) * instants) };
}

/** An upper bound on the pods present at once: workloads by kind/namespace/name at their largest replica count. */
function estimatePeakPods(steps: ScenarioStep[]): number {
  const workloads = new Map<string, number>();
  const raise = (key: string, n: number): void => {
    workloads.set(key, Math.max(workloads.get(key) ?? 0, n));
  };
  let bare = 0;
  for (const { action } of steps) {
    if (action.type === 'scale') {
      const t = action.target;
      raise(`${t.kind}/${t.namespace}/${t.name}`, action.replicas);
    } else if (action.type === 'apply') {
      bare += action.set.pods.length;
      for (const [key, n] of workloadReplicas(action.set)) raise(key, n);
    } else if (action.type === 'seed') {
      bare += action.pods.length;
    }
  }
  let total = bare;
  for (const n of workloads.values()) total += n;
  return total;
}

function workloadReplicas(set: ManifestSet): [string, number][] {
  const key = (kind: string, m: { namespace?: string; name?: string }): string =>
    `${kind}/${m.namespace ?? 'default'}/${m.name ?? ''}`;
  return [
    ...set.deployments.map((d): [string, number] => [key('Deployment', d.metadata), d.spec.replicas ?? 1]),
    ...set.replicaSets.map((d): [string, number] => [key('ReplicaSet', d.metadata), d.spec.replicas ?? 1]),
    ...set.statefulSets.map((d): [string, number] => [key('StatefulSet', d.metadata), d.spec.replicas ?? 1]),
    ...set.jobs.map((j): [string, number] => [key('Job', j.metadata), j.spec.parallelism ?? 1]),
  ];
}
