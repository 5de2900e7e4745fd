// Pod facts the sweep decides on: what a pod asks for, whether it must move when its node goes, whether it blocks
// a graceful disruption, and what evicting it costs (Karpenter's eviction cost).
import type { Pod } from '../api/kube';
import { isDaemonSetPod, isMirrorPod, isTerminal } from '../api/pods';
import { parseResourceList, type ResourceList } from '../api/resources';

const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/** Effective requests: the larger of the containers' sum and the biggest init container, plus pod overhead. */
export function podRequests(pod: Pod): ResourceList {
  const sum: ResourceList = {};
  for (const c of pod.spec.containers) {
    const r = parseResourceList(c.resources?.requests ?? c.resources?.limits);
    for (const k in r) sum[k] = (sum[k] ?? 0) + (r[k] as number);
  }
  for (const c of pod.spec.initContainers ?? []) {
    const r = parseResourceList(c.resources?.requests ?? c.resources?.limits);
    for (const k in r) sum[k] = Math.max(sum[k] ?? 0, r[k] as number);
  }
  const overhead = parseResourceList(pod.spec.overhead);
  for (const k in overhead) sum[k] = (sum[k] ?? 0) + (overhead[k] as number);
  sum.pods = 1;
  return sum;
}

/** Pods that need a new home when their node goes: not DaemonSet, mirror or terminal, and not already terminating
 * unless a StatefulSet owns them: the StatefulSet recreates such a pod under the same name once it is gone, so it
 * still needs room (Karpenter's IsReschedulable). */
export const isReschedulable = (pod: Pod): boolean =>
  !isDaemonSetPod(pod) &&
  !isMirrorPod(pod) &&
  !isTerminal(pod) &&
  (!pod.metadata.deletionTimestamp || isStatefulSetPod(pod));

const isStatefulSetPod = (pod: Pod): boolean =>
  pod.metadata.ownerReferences?.some((o) => o.kind === 'StatefulSet') ?? false;

export { doNotDisruptActive, doNotDisruptUntil, nodeDoNotDisrupt } from '../api/do-not-disrupt';

/** Karpenter's eviction cost: 1, nudged by the pod-deletion-cost annotation and the priority, within [-10, 10]. */
export function evictionCost(pod: Pod): number {
  let cost = 1;
  const deletionCost = Number(pod.metadata.annotations?.[DELETION_COST]);
  if (Number.isFinite(deletionCost)) cost += deletionCost / 2 ** 27;
  if (pod.spec.priority !== undefined) cost += pod.spec.priority / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}

/** Pods whose placement depends on other pods or volumes: the fast capacity model cannot judge them alone. */
export function isConstrained(pod: Pod): boolean {
  const a = pod.spec.affinity;
  if (a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length) return true;
  if (a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length) return true;
  if (pod.spec.topologySpreadConstraints?.some((c) => c.whenUnsatisfiable !== 'ScheduleAnyway')) return true;
  if (pod.spec.volumes?.some((v) => !!v.persistentVolumeClaim || !!v.ephemeral)) return true;
  return pod.spec.containers.some((c) => c.ports?.some((p) => p.hostPort !== undefined && p.hostPort !== 0));
}
