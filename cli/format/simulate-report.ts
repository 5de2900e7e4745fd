// The JSON contract of `karpless simulate --output json`: quantities as Kubernetes quantity strings, pods as
// "namespace/name", prices in dollars per hour. Field order is fixed so output diffs cleanly.
import type { Replacement } from '../../shared/api';
import { podKey } from '../../shared/api/kube';
import { formatResourceList } from '../../shared/api/resources';
import type { LaunchedNodeClaim, SimulationResult } from '../../shared/sim';
import { instanceFields, nodeLabels, type ReportedNodeClaim } from '../../shared/sim';
import { type PendingGroup, pendingGroups } from './pending-groups';
import { roundPrice } from './table';

export interface SimulateReport {
  nodeClaims: (ReportedNodeClaim & { daemonSetOverhead: Record<string, string> })[];
  /** `pods`: placed by this plan; `boundPods`: already running there. */
  existingNodes: { name: string; pods: string[]; boundPods: string[]; inflight?: true }[];
  unschedulable: { pod: string; reason: string }[];
  /** The unschedulable pods by owner and reason, for people (pending-groups.ts); absent when none is pending. */
  pendingGroups?: PendingGroup[];
  /** With --time-budget: pods the budget left unplanned, for the next pass. */
  deferred?: { pod: string; reason: 'time budget' }[];
  warnings: string[];
  /** NodePools, EC2NodeClasses and NodeOverlays a later `-f` replaced by name (docs/simulate-dump.md, "Layered
   * inputs"); absent when none was. */
  replaced?: Replacement[];
  summary: SimulationResult['summary'] & {
    /** How the new NodeClaims were packed (shared/scheduling/exact); absent when no claim could be judged. */
    packing?: {
      /** Every new NodeClaim's packing is proven optimal. */
      provenOptimal: boolean;
      /** Pods on new NodeClaims, and those whose packing the integer program judged. */
      newPods: number;
      exactPods: number;
      /** The judged claims' cost and a lower bound on any packing of their pods, $/h. */
      costPerHour: number;
      boundPerHour: number;
    };
    defaultNodePool?: string;
  };
}

function claimReport(c: LaunchedNodeClaim): SimulateReport['nodeClaims'][number] {
  const { plan, instance, instanceType } = c;
  return {
    name: plan.name,
    nodePool: plan.nodePool,
    nodeClass: plan.nodeClass,
    ...instanceFields(instance, instanceType),
    requests: formatResourceList(plan.requests),
    daemonSetOverhead: formatResourceList(plan.daemonSetOverhead),
    instanceTypeOptions: plan.instanceTypeOptions.map((t) => t.name),
    labels: nodeLabels(instance, instanceType, plan.nodePool, plan.labels),
    taints: plan.taints,
    startupTaints: plan.startupTaints,
    instanceId: instance.instanceId,
    providerID: instance.providerID,
    pods: plan.pods.map(podKey),
  };
}

export function buildSimulateReport(result: SimulationResult, replaced: Replacement[] = []): SimulateReport {
  const summary: SimulateReport['summary'] = {
    pods: result.summary.pods,
    scheduledPods: result.summary.scheduledPods,
    nodeClaims: result.summary.nodeClaims,
    costPerHour: roundPrice(result.summary.costPerHour),
    lowerBoundPerHour: roundPrice(result.summary.lowerBoundPerHour),
  };
  if (result.summary.podsWithoutRequests) summary.podsWithoutRequests = result.summary.podsWithoutRequests;
  const packing = result.stats.packing;
  if (packing) {
    summary.packing = {
      provenOptimal: packing.provenOptimal,
      newPods: packing.newPods,
      exactPods: packing.exactPods,
      costPerHour: roundPrice(packing.costPerHour),
      boundPerHour: roundPrice(packing.boundPerHour),
    };
  }
  if (result.defaultNodePool) summary.defaultNodePool = result.defaultNodePool;
  return {
    nodeClaims: result.nodeClaims.map(claimReport),
    existingNodes: result.existingNodes.map((n) => ({
      name: n.name,
      pods: n.pods.map(podKey),
      boundPods: n.boundPods.map(podKey),
      ...(n.inflight ? { inflight: true as const } : {}),
    })),
    unschedulable: result.unschedulable.map((u) => ({ pod: podKey(u.pod), reason: u.reason })),
    ...(result.unschedulable.length > 0 ? { pendingGroups: pendingGroups(result) } : {}),
    ...(result.deferred
      ? { deferred: result.deferred.map((p) => ({ pod: podKey(p), reason: 'time budget' as const })) }
      : {}),
    warnings: result.warnings,
    ...(replaced.length > 0 ? { replaced } : {}),
    summary,
  };
}
