// Taints and tolerations, by the Kubernetes rules. PreferNoSchedule taints are honoured as if required until the
// pod's preferences are relaxed (see preferences.ts), as Karpenter does.
import type { Taint, Toleration } from '../api/kube';

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (!t.key) return t.operator === 'Exists';
  if (t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

/** The first taint the tolerations do not cover, or undefined when every taint is tolerated. */
export function firstUntolerated(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  for (const taint of taints) {
    if (!tolerations.some((t) => tolerates(t, taint))) return taint;
  }
  return undefined;
}

export function formatTaint(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

/**
 * Whether the tolerations cover every NoSchedule and NoExecute taint: the taints kube-scheduler's filters act on, and
 * so the ones a topology spread with `nodeTaintsPolicy: Honor` uses to leave a node out.
 */
export function toleratesHardTaints(taints: readonly Taint[], tolerations: readonly Toleration[]): boolean {
  for (const taint of taints) {
    if (taint.effect === 'PreferNoSchedule') continue;
    if (!tolerations.some((t) => tolerates(t, taint))) return false;
  }
  return true;
}
