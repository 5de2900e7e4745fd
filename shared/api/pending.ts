// Which pods Karpless provisions for: a pure rule the adapter (Lambda), the simulator and the forwarder (in-cluster)
// share, free of client imports so the forwarder stays small. Same rule as Karpenter: kube-scheduler has given up on the pod
// (PodScheduled=False, reason Unschedulable), it is not bound, not preempting, not terminating, and not owned by a
// DaemonSet (those are handled by the daemonset overhead) or by a Node (static mirror pods).
import type { Pod } from './kube';

export const PENDING_POD_FIELD_SELECTOR = 'spec.nodeName=,status.phase=Pending';

type PodLike = Pick<Pod, 'metadata' | 'spec' | 'status'> & {
  metadata: { ownerReferences?: { kind: string }[]; deletionTimestamp?: unknown };
};

export function isUnschedulable(pod: Pick<Pod, 'status'>): boolean {
  return (pod.status?.conditions ?? []).some(
    (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
  );
}

export function isDaemonSetOwned(pod: { metadata: { ownerReferences?: { kind: string }[] } }): boolean {
  return (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
}

export function isProvisionable(pod: PodLike): boolean {
  if (pod.spec.nodeName) return false;
  if (pod.status?.phase && pod.status.phase !== 'Pending') return false;
  if (pod.metadata.deletionTimestamp) return false;
  if (pod.status?.nominatedNodeName) return false;
  if ((pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet' || o.kind === 'Node')) return false;
  return isUnschedulable(pod);
}
