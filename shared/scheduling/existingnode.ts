// An existing node or in-flight NodeClaim as a bin: fixed labels, its taints (startup and not-yet-registered taints
// ignored while in flight, since they will go away), what its pods already use, and the host ports they hold.
import type { Pod, Taint } from '../api/kube';
import { LabelHostname, TaintUnregistered } from '../api/labels';
import type { ResourceList } from '../api/resources';
import { HostPortUsage, podHostPorts } from './hostports';
import { Requirements } from './requirements';
import { addVec, podRequests, type ResourceIndex } from './resources';
import type { ClusterNode } from './types';

export class ExistingNode {
  readonly name: string;
  readonly hostname: string;
  readonly requirements: Requirements;
  readonly taints: Taint[];
  readonly cap: Float64Array;
  readonly used: Float64Array;
  readonly hostPorts = new HostPortUsage();
  readonly placed: Pod[] = [];
  /** Shapes already known not to fit (resources, requirements, taints: all only get worse). */
  readonly failed = new Set<number>();

  constructor(
    readonly node: ClusterNode,
    index: ResourceIndex,
    podRequestsOf: (p: Pod) => ResourceList,
  ) {
    this.name = node.name;
    this.hostname = node.labels[LabelHostname] ?? node.name;
    this.requirements = Requirements.fromLabels({ ...node.labels, [LabelHostname]: this.hostname });
    const startup = node.startupTaints ?? [];
    this.taints = node.inflight
      ? node.taints.filter(
          (t) => t.key !== TaintUnregistered.key && !startup.some((s) => s.key === t.key && s.effect === t.effect),
        )
      : node.taints;
    this.cap = index.vector(node.allocatable);
    this.used = new Float64Array(index.names.length);
    for (const p of node.pods) {
      addVec(this.used, index.vector(podRequestsOf(p)));
      this.hostPorts.add(podHostPorts(p));
    }
  }

  get accepting(): boolean {
    return !this.node.markedForDeletion;
  }
}

export function safePodRequests(p: Pod): ResourceList {
  try {
    return podRequests(p);
  } catch {
    return { pods: 1 };
  }
}
