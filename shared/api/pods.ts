// Pod facts the control plane decides on: identity across serialization, ownership, criticality and drainability.
import type { Pod, PodRef, Taint, Toleration } from './kube';
import { TaintDisrupted } from './labels';

export const CRITICAL_PRIORITY_CLASSES: ReadonlySet<string> = new Set([
  'system-cluster-critical',
  'system-node-critical',
]);
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

export function podRef(pod: Pod): PodRef {
  const ref: PodRef = { namespace: pod.metadata.namespace, name: pod.metadata.name };
  if (pod.metadata.uid) ref.uid = pod.metadata.uid;
  return ref;
}

export const refKey = (ref: PodRef): string => `${ref.namespace}/${ref.name}`;

/** A ref names this pod when namespace and name match and, if both carry one, the uid too: a pod recreated under
 * the same name (a StatefulSet replica, an evicted pod's replacement) is a different pod. */
export function refMatches(ref: PodRef, pod: Pod): boolean {
  if (ref.namespace !== pod.metadata.namespace || ref.name !== pod.metadata.name) return false;
  return !ref.uid || !pod.metadata.uid || ref.uid === pod.metadata.uid;
}

/** Index pods by namespace/name for ref lookups. */
export function indexPods(pods: Iterable<Pod>): Map<string, Pod> {
  const out = new Map<string, Pod>();
  for (const pod of pods) out.set(`${pod.metadata.namespace}/${pod.metadata.name}`, pod);
  return out;
}

export function resolveRef(index: Map<string, Pod>, ref: PodRef): Pod | undefined {
  const pod = index.get(refKey(ref));
  return pod && refMatches(ref, pod) ? pod : undefined;
}

export const isDaemonSetPod = (pod: Pod): boolean =>
  pod.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') ?? false;

/** Static pods appear as mirror pods owned by their Node; the API server cannot evict them. */
export const isMirrorPod = (pod: Pod): boolean =>
  MIRROR_ANNOTATION in (pod.metadata.annotations ?? {}) ||
  (pod.metadata.ownerReferences?.some((o) => o.kind === 'Node') ?? false);

export const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

export const isCritical = (pod: Pod): boolean => CRITICAL_PRIORITY_CLASSES.has(pod.spec.priorityClassName ?? '');

export function tolerates(tolerations: Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (!t.key) return t.operator === 'Exists';
    if (t.key !== taint.key) return false;
    return t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '');
  });
}

/** Karpenter does not drain pods that tolerate the disrupted taint: they asked to stay until the node goes. */
export const toleratesDisruption = (pod: Pod): boolean => tolerates(pod.spec.tolerations, TaintDisrupted);

/** Pods that need a new home when their node goes away: not DaemonSet-owned (the DaemonSet follows the nodes),
 * not static, not finished, and not ones that chose to stay on a disrupted node. */
export const isReschedulable = (pod: Pod): boolean =>
  !isDaemonSetPod(pod) && !isMirrorPod(pod) && !isTerminal(pod) && !toleratesDisruption(pod);
