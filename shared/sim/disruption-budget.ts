// How many more pods a PodDisruptionBudget lets go right now, computed the way the disruption controller does:
// from the healthy (bound, running, not terminating) pods it selects.
import type { Pod, PodDisruptionBudget } from '../api/kube';
import { matchesSelector } from './label-selector';

export function selectedBy(pdb: PodDisruptionBudget, pod: Pod): boolean {
  return (
    (pdb.metadata.namespace ?? 'default') === pod.metadata.namespace &&
    matchesSelector(pdb.spec.selector, pod.metadata.labels)
  );
}

const isHealthy = (p: Pod): boolean =>
  !!p.spec.nodeName && p.status?.phase === 'Running' && !p.metadata.deletionTimestamp;

/** Resolves an int-or-percent against the expected pod count; percentages round up, as Kubernetes does. */
function resolve(value: number | string, expected: number): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value.trim());
  if (m) return Math.ceil((Number(m[1]) * expected) / 100);
  const n = Number(value);
  return Number.isInteger(n) ? n : 0;
}

export function disruptionsAllowed(pdb: PodDisruptionBudget, pods: Iterable<Pod>): number {
  let expected = 0;
  let healthy = 0;
  for (const p of pods) {
    if (!selectedBy(pdb, p)) continue;
    expected++;
    if (isHealthy(p)) healthy++;
  }
  if (pdb.spec.maxUnavailable !== undefined) {
    return Math.max(0, resolve(pdb.spec.maxUnavailable, expected) - (expected - healthy));
  }
  if (pdb.spec.minAvailable !== undefined) return Math.max(0, healthy - resolve(pdb.spec.minAvailable, expected));
  return Math.max(0, healthy);
}
