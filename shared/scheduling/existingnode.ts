// An existing node or in-flight NodeClaim as a bin: fixed labels, its taints (startup and ephemeral taints ignored
// while in flight, since they will go away; respected once the node is initialized), what its pods already use, the
// host ports they hold and the volumes they attach. It decides whether a pod fits (resources, taints, labels, host
// ports, volume attach limits, topology) and records the pods it takes.

import { isEphemeralTaint } from '../api/ephemeral-taints';
import type { Pod, Taint } from '../api/kube';
import { LabelHostname } from '../api/labels';
import type { ResourceList } from '../api/resources';
import { HostPortUsage, podHostPorts } from './hostports';
import type { PodShape } from './podshape';
import { Requirements } from './requirements';
import { addVec, fitsVec, podRequests, type ResourceIndex } from './resources';
import { firstUntolerated, formatTaint } from './taints';
import type { Topology } from './topology';
import type { TopologyGroup } from './topologygroup';
import type { ClusterNode } from './types';
import { NO_VOLUMES, type PodVolumes, VolumeUsage } from './volumeusage';

/** Whether a pod on a node is left out of topology counts, spreads and anti-affinity, as Karpenter leaves it out: a
 * terminating pod still holds its resources but is going, and a Failed or Succeeded pod runs nothing. */
export function ignoredForTopology(p: Pod): boolean {
  return !!p.metadata.deletionTimestamp || p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded';
}

export class ExistingNode {
  readonly name: string;
  readonly hostname: string;
  readonly requirements: Requirements;
  readonly taints: Taint[];
  readonly cap: Float64Array;
  readonly used: Float64Array;
  readonly hostPorts = new HostPortUsage();
  /** Volumes its pods attach, against the node's per-driver limits (a CSINode's allocatable counts). */
  readonly volumes: VolumeUsage;
  readonly placed: Pod[] = [];
  /** Shapes already known not to fit (resources, requirements, taints: all only get worse). */
  readonly failed = new Set<number>();

  constructor(
    readonly node: ClusterNode,
    index: ResourceIndex,
    podRequestsOf: (p: Pod) => ResourceList,
    private readonly topology: Topology<PodShape>,
    private readonly volumesOf: (p: Pod) => PodVolumes = () => NO_VOLUMES,
  ) {
    this.name = node.name;
    this.hostname = node.labels[LabelHostname] ?? node.name;
    this.requirements = Requirements.fromLabels({ ...node.labels, [LabelHostname]: this.hostname });
    const startup = node.startupTaints ?? [];
    this.taints = node.inflight
      ? node.taints.filter(
          (t) => !isEphemeralTaint(t) && !startup.some((s) => s.key === t.key && s.effect === t.effect),
        )
      : node.taints;
    this.cap = index.vector(node.allocatable);
    this.used = new Float64Array(index.names.length);
    this.volumes = new VolumeUsage(node.volumeLimits);
    for (const p of node.pods) {
      addVec(this.used, index.vector(podRequestsOf(p)));
      this.hostPorts.add(podHostPorts(p));
      // A terminating pod's volumes stay attached until it is gone, so they still count.
      this.volumes.add(volumesOf(p));
    }
  }

  get accepting(): boolean {
    return !this.node.markedForDeletion;
  }

  /** Whether the pod, of this shape, can join now. Failures of the shape other than topology are remembered: they only
   * get worse. The volume limit is the pod's own (its claims), so it is checked per pod and never cached. */
  canAdd(shape: PodShape, pod: Pod): boolean {
    if (this.failed.has(shape.id)) return false;
    if (
      !fitsVec(this.used, shape.requests, this.cap) ||
      firstUntolerated(this.taints, shape.tolerations) ||
      !shape.requirements.matchesLabels(this.node.labels) ||
      (shape.hostPorts.length > 0 && this.hostPorts.conflict(shape.hostPorts))
    ) {
      this.failed.add(shape.id);
      return false;
    }
    if (this.volumes.exceeds(this.volumesOf(pod))) return false;
    return this.topology.check(shape, this.requirements, this.hostname).ok;
  }

  /** Places the pod (after canAdd) and counts it in the topology. */
  add(pod: Pod, shape: PodShape): void {
    addVec(this.used, shape.requests);
    this.hostPorts.add(shape.hostPorts);
    this.volumes.add(this.volumesOf(pod));
    this.placed.push(pod);
    this.topology.record(shape, this.requirements, this.hostname, this.taints, false);
  }

  /** Counts the pods already on the node in every group that selects them and counts on this node. */
  countPods(groups: readonly TopologyGroup[]): void {
    for (const p of this.node.pods) {
      if (ignoredForTopology(p)) continue;
      const id = { namespace: p.metadata.namespace, labels: p.metadata.labels ?? {} };
      for (const g of groups) {
        if (!g.selects(id) || !g.countsOn(this.taints, this.requirements, false)) continue;
        const d = this.domainOf(g);
        if (d !== undefined) g.record(d);
      }
    }
  }

  /** Records the node's domain as held by a pod on it that owns these required anti-affinity groups. */
  recordOwner(groups: readonly TopologyGroup[]): void {
    for (const g of groups) {
      const d = this.domainOf(g);
      if (d !== undefined) g.recordOwner(d);
    }
  }

  private domainOf(g: TopologyGroup): string | undefined {
    return g.isHostname ? this.hostname : this.node.labels[g.key];
  }

  /** Whether the node accepts pods and has room, tolerated taints and matching labels (topology and ports aside). */
  mightTake(shape: PodShape): boolean {
    return (
      this.accepting &&
      fitsVec(this.used, shape.requests, this.cap) &&
      !firstUntolerated(this.taints, shape.tolerations) &&
      shape.requirements.matchesLabels(this.node.labels)
    );
  }

  /** The first simple reason the pod cannot join, for messages; undefined when only topology or ports stop it. */
  failure(shape: PodShape, pod?: Pod): string | undefined {
    if (!this.accepting) return 'marked for deletion';
    const taint = firstUntolerated(this.taints, shape.tolerations);
    if (taint) return `taint ${formatTaint(taint)} is not tolerated`;
    const req = shape.requirements.firstUnmatchedLabel(this.node.labels);
    if (req) return `label ${req.key}=${this.node.labels[req.key] ?? '(absent)'} does not match ${req}`;
    if (!fitsVec(this.used, shape.requests, this.cap)) return 'not enough free resources';
    return pod ? this.volumes.exceeds(this.volumesOf(pod)) : undefined;
  }
}

export function safePodRequests(p: Pod): ResourceList {
  try {
    return podRequests(p);
  } catch {
    return { pods: 1 };
  }
}
