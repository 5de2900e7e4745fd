// What `karpless simulate -f` reads of its objects before the world is built (simulation.ts): the NodePools, or the
// embedded default; each pool's instance types through its EC2NodeClass, with the NodeOverlays applied; which pods
// are bound to given Nodes and which are pending; the given Nodes as kubelet registers them; and the warnings the
// load gives.

import { PENDING_STATUS } from '../api/expand';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { Node, Pod } from '../api/kube';
import { podKey } from '../api/kube';
import { LabelHostname, LabelInstanceType } from '../api/labels';
import { isProviderNodePool } from '../api/node-class-ref';
import { isDaemonSetOwned, isProvisionable } from '../api/pending';
import { isTerminal } from '../api/pods';
import { formatResourceList } from '../api/resources';
import { applyNodeOverlays } from '../catalog/overlay';
import type { InstanceType } from '../catalog/types';
import { overlayPool, ownedView } from '../controllers';
import { ValidationError } from '../errors';
import { nodePoolWarnings, podZoneWarnings, requestlessPods, requestlessWarning } from './load-warnings';
import type { SimulationEngine, SimulationObjects } from './simulation';

export const DEFAULT_POOL_WARNING = (name: string): string =>
  `no NodePool given: using the embedded default NodePool "${name}" (linux, amd64, spot and on-demand, instance categories c, m and r, generation > 2)`;

/** The objects as the simulation plans them. */
export interface SimulationInput {
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  /** Set when no NodePool was given and the embedded default is used. */
  defaultPool?: string;
  /** The catalog's types through each EC2NodeClass, as the simulated cloud serves them. */
  typesByClass: Map<string, InstanceType[]>;
  /** Each NodePool's types with the NodeOverlays applied. */
  instanceTypes: Map<string, InstanceType[]>;
  /** The overlaid types by name (the first pool's, for a type several pools offer). */
  typesByName: Map<string, InstanceType>;
  bound: Pod[];
  pending: Pod[];
  /** Pending pods that request no CPU or memory. */
  requestless: Pod[];
  givenNodes: Node[];
}

/** Reads the objects as the simulation plans them, adding what it notices to `warnings`. */
export function readSimulationInput(
  objects: SimulationObjects,
  engine: SimulationEngine,
  warnings: string[],
): SimulationInput {
  const { nodePools, nodeClasses, defaultPool } = withDefaultPool(objects, engine, warnings);
  const catalogTypes = resolveInstanceTypes(nodePools, nodeClasses, engine);
  // The cloud serves the catalog's types; the provisioning pass applies the NodeOverlays to them, as in production.
  // The overlaid types here serve the node allocatable, the progress line and the LP bound.
  const typesByClass = new Map<string, InstanceType[]>();
  for (const pool of nodePools) {
    typesByClass.set(pool.spec.template.spec.nodeClassRef.name, catalogTypes.get(pool.metadata.name) ?? []);
  }
  const overlaid = applyNodeOverlays(objects.nodeOverlays ?? [], nodePools.map(overlayPool), catalogTypes);
  const instanceTypes = overlaid.instanceTypes;
  for (const c of overlaid.conflicts) warnings.push(`NodeOverlay/${c.overlay}: not applied: ${c.reason}`);
  const typesByName = new Map<string, InstanceType>();
  for (const types of instanceTypes.values())
    for (const t of types) if (!typesByName.has(t.name)) typesByName.set(t.name, t);
  const split = splitPods(objects, warnings);
  const bound = split.bound;
  const pending = withoutOtherProvidersPods(objects.nodePools, split.pending, warnings);
  warnings.push(...nodePoolWarnings(nodePools, nodeClasses, catalogTypes, engine.catalog));
  if (engine.catalog) warnings.push(...podZoneWarnings(pending, engine.catalog));
  const requestless = requestlessPods(pending);
  warnings.push(...requestlessWarning(requestless, pending.length));
  const givenNodes = (objects.nodes ?? []).map((n) => asRegistered(n, typesByName));
  return {
    nodePools,
    nodeClasses,
    ...(defaultPool ? { defaultPool } : {}),
    typesByClass,
    instanceTypes,
    typesByName,
    bound,
    pending,
    requestless,
    givenNodes,
  };
}

/** The pending pods Karpless plans for: those only another provider's pools could serve are left to it, as the
 * provisioning pass leaves them (ownership.ts), and counted in one warning per pool set. */
function withoutOtherProvidersPods(nodePools: readonly NodePool[], pending: Pod[], warnings: string[]): Pod[] {
  if (nodePools.every(isProviderNodePool)) return pending;
  const view = ownedView(nodePools, pending, undefined);
  if (view.ignored.length > 0) {
    const others = nodePools.filter((p) => !isProviderNodePool(p)).map((p) => p.metadata.name);
    warnings.push(
      `${view.ignored.length} pending pod(s) only NodePool(s) ${others.join(', ')} of another provider could serve: left to their owner`,
    );
  }
  return view.pending;
}

/** A given Node as kubelet registers it: labelled with its hostname, and with its type's allocatable when the
 * manifest gives none. */
function asRegistered(node: Node, typesByName: Map<string, InstanceType>): Node {
  const labels: Record<string, string> = { [LabelHostname]: node.metadata.name, ...node.metadata.labels };
  const typeName = labels[LabelInstanceType];
  const type = typeName ? typesByName.get(typeName) : undefined;
  const allocatable = node.status?.allocatable ?? (type ? formatResourceList(type.allocatable) : undefined);
  return {
    ...node,
    kind: 'Node',
    metadata: { ...node.metadata, labels },
    spec: { ...node.spec },
    status: { ...node.status, ...(allocatable ? { allocatable } : {}) },
  };
}

/** The given NodePools, or the embedded default (with its EC2NodeClass) and a warning saying so. */
function withDefaultPool(
  objects: SimulationObjects,
  engine: SimulationEngine,
  warnings: string[],
): { nodePools: NodePool[]; nodeClasses: EC2NodeClass[]; defaultPool?: string } {
  // Another provider's pools are left to their owner (the validation warning says so); with only such pools given,
  // Karpless has no pool to plan on, and no default stands in for them.
  if (objects.nodePools.length > 0) {
    return { nodePools: objects.nodePools.filter(isProviderNodePool), nodeClasses: objects.nodeClasses };
  }
  const fallback = engine.defaultNodePool();
  const hasClass = objects.nodeClasses.some((c) => c.metadata.name === fallback.nodeClass.metadata.name);
  const defaultPool = fallback.nodePool.metadata.name;
  warnings.push(DEFAULT_POOL_WARNING(defaultPool));
  return {
    nodePools: [fallback.nodePool],
    nodeClasses: hasClass ? objects.nodeClasses : [...objects.nodeClasses, fallback.nodeClass],
    defaultPool,
  };
}

/**
 * Which input pods the plan sees, as the controller sees a cluster (docs/simulate-dump.md, "Which pods count"):
 * - Succeeded and Failed pods count nowhere;
 * - pods bound to a given Node stay there, terminating or not (they hold their resources until they are gone);
 * - unbound pods are provisioned for only when kube-scheduler gave up on them (PodScheduled=False, Unschedulable; plain
 *   manifests get that status when they have none) and they are not terminating, preempting, DaemonSet- or
 *   Node-owned; the rest are left out, each reason named once in the warnings;
 * - a pod bound to a Node not given is planned again (with a warning), unless it is terminating or DaemonSet-owned.
 */
function splitPods(objects: SimulationObjects, warnings: string[]): { bound: Pod[]; pending: Pod[] } {
  const nodeNames = new Set((objects.nodes ?? []).map((n) => n.metadata.name));
  const bound: Pod[] = [];
  const pending: Pod[] = [];
  const skipped = new Map<string, string[]>();
  const skip = (pod: Pod, why: string): void => {
    skipped.set(why, [...(skipped.get(why) ?? []), podKey(pod)]);
  };
  for (const pod of objects.pods) {
    // A Succeeded or Failed pod holds no resources and no topology slot, bound or not (as the controllers treat it).
    if (isTerminal(pod)) continue;
    const nodeName = pod.spec.nodeName;
    if (nodeName && nodeNames.has(nodeName)) {
      bound.push(pod);
      continue;
    }
    if (nodeName) {
      if (pod.metadata.deletionTimestamp || isDaemonSetOwned(pod)) continue;
      warnings.push(
        `${pod.metadata.namespace}/${pod.metadata.name}: spec.nodeName "${nodeName}" is not among the given Nodes; treated as pending`,
      );
      const { nodeName: _unknown, ...spec } = pod.spec;
      pending.push({ ...pod, spec, status: { ...pod.status, ...PENDING_STATUS } });
      continue;
    }
    // A pod with no status at all is a plain manifest: it stands for a pod kube-scheduler could not place.
    const candidate: Pod = pod.status ? pod : { ...pod, status: structuredClone(PENDING_STATUS) };
    if (isProvisionable(candidate)) pending.push(candidate);
    else skip(pod, notProvisionableReason(pod));
  }
  for (const [why, pods] of skipped) {
    const shown = pods.slice(0, 5).join(', ') + (pods.length > 5 ? `, and ${pods.length - 5} more` : '');
    warnings.push(`${pods.length} pod(s) not provisioned for: ${why}: ${shown}`);
  }
  return { bound, pending };
}

/** Why the controller leaves an unbound, non-terminal pod alone (the rules of shared/api/pending.ts). */
function notProvisionableReason(pod: Pod): string {
  if (pod.metadata.deletionTimestamp) return 'terminating (metadata.deletionTimestamp is set)';
  if (pod.status?.nominatedNodeName) return 'preempting (status.nominatedNodeName is set)';
  if (isDaemonSetOwned(pod)) return 'owned by a DaemonSet (counted as DaemonSet overhead)';
  if (pod.metadata.ownerReferences?.some((o) => o.kind === 'Node')) return 'a static (mirror) pod';
  return 'kube-scheduler has not marked it unschedulable (no PodScheduled=False condition with reason Unschedulable)';
}

/** Instance types per NodePool, through the EC2NodeClass it references; a dangling reference is invalid input. */
function resolveInstanceTypes(
  nodePools: NodePool[],
  nodeClasses: EC2NodeClass[],
  engine: SimulationEngine,
): Map<string, InstanceType[]> {
  const byClass = new Map<string, InstanceType[]>();
  const out = new Map<string, InstanceType[]>();
  const problems: string[] = [];
  for (const pool of nodePools) {
    const ref = pool.spec.template.spec.nodeClassRef.name;
    const nodeClass = nodeClasses.find((c) => c.metadata.name === ref);
    if (!nodeClass) {
      const known = nodeClasses.map((c) => c.metadata.name).join(', ') || 'none given';
      problems.push(
        `NodePool/${pool.metadata.name}: spec.template.spec.nodeClassRef.name: EC2NodeClass "${ref}" not found (known: ${known})`,
      );
      continue;
    }
    let types = byClass.get(ref);
    if (!types) {
      types = engine.instanceTypesFor(nodeClass);
      byClass.set(ref, types);
    }
    out.set(pool.metadata.name, types);
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return out;
}
