// karpenter.sh/do-not-disrupt on a pod: "true" protects it while it runs; a duration ("30m") protects it for that long
// after it started (status.startTime; a pod without one stays protected, failing safe); any other value protects
// nothing (Karpenter treats an unreadable value as no annotation). Terminal and terminating pods are never protected.
// On a Node only "true" counts, as in Karpenter.
import type { Pod } from './kube';
import { AnnotationDoNotDisrupt } from './labels';
import { parseDuration } from './quantity';

/** Epoch ms until which the pod is protected: Infinity for "true" (or a duration without a start time), undefined
 * when it is not protected at all. */
export function doNotDisruptUntil(pod: Pod): number | undefined {
  const value = pod.metadata.annotations?.[AnnotationDoNotDisrupt];
  if (value === undefined) return undefined;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' || pod.metadata.deletionTimestamp) {
    return undefined;
  }
  if (value === 'true') return Number.POSITIVE_INFINITY;
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    return undefined;
  }
  if (!Number.isFinite(ms) || ms <= 0) return undefined;
  const started = Date.parse(pod.status?.startTime ?? '');
  return Number.isNaN(started) ? Number.POSITIVE_INFINITY : started + ms;
}

/** Whether the pod's do-not-disrupt annotation protects it at `now` (epoch ms). */
export const doNotDisruptActive = (pod: Pod, now: number): boolean => {
  const until = doNotDisruptUntil(pod);
  return until !== undefined && now < until;
};

/** Whether a Node's annotations protect it: only "true". */
export const nodeDoNotDisrupt = (annotations: Record<string, string> | undefined): boolean =>
  annotations?.[AnnotationDoNotDisrupt] === 'true';
