// The cluster as the solver must see it before adding capacity: registered nodes with their pods, and in-flight
// NodeClaims holding the pods nominated to them. A pod nominated to a live claim counts as placed there, which is
// what makes a redelivered or repeated pass launch nothing twice.
import type { CSINode, Node, Pod, Taint } from '../api/kube';
import {
  LabelCapacityType,
  LabelHostname,
  LabelInstanceType,
  LabelNodePool,
  LabelZone,
  TaintDisrupted,
  TaintUnregistered,
} from '../api/labels';
import { type NodeClaim, reservationLabels } from '../api/nodeclaim';
import { indexPods, isReschedulable, refKey, resolveRef } from '../api/pods';
import { parseResourceList, type ResourceList } from '../api/resources';
import type { InstanceType } from '../catalog/types';
import type { ClusterNode } from '../scheduling';
import type { ClusterSnapshot } from './snapshot';

export interface ClusterView {
  existing: ClusterNode[];
  /** Pods (pending, or displaced from a draining node) already nominated to a live claim, by namespace/name. */
  held: Map<string, NodeClaim>;
  /** Bound pods on draining nodes that need a new home. */
  displaced: Pod[];
  /** The claim behind each ClusterNode name (node name once registered, claim name before). */
  claimOf: Map<string, NodeClaim>;
  /** The Node object behind a claim, by claim name. */
  nodeOf: Map<string, Node>;
}

/** Matches nodes to claims by providerID (then by recorded node name). */
export function matchNodes(nodes: Node[], claims: NodeClaim[]): Map<string, Node> {
  const byProvider = new Map<string, Node>();
  const byName = new Map<string, Node>();
  for (const n of nodes) {
    if (n.spec.providerID) byProvider.set(n.spec.providerID, n);
    byName.set(n.metadata.name, n);
  }
  const out = new Map<string, Node>();
  for (const c of claims) {
    const node = (c.providerID && byProvider.get(c.providerID)) || (c.nodeName && byName.get(c.nodeName));
    if (node) out.set(c.name, node);
  }
  return out;
}

export interface ClusterViewOptions {
  /** Claims (by claim or node name) to treat as going away although not yet Draining: their pods are re-placed.
   * Disruption uses this to launch replacements before it drains anything. */
  leaving?: ReadonlySet<string>;
  /** How long after a claim initialized its still-pending nominated pods stay reserved there. After that they are
   * planned again: kube-scheduler (or the binder) had its chance, and a reservation must never strand a pod. */
  nominationTtlMs?: number;
}

export function buildClusterView(s: ClusterSnapshot, options: ClusterViewOptions = {}): ClusterView {
  const nodeOf = matchNodes(s.nodes, s.claims);
  const leaving = (c: NodeClaim): boolean =>
    c.state === 'Draining' || !!options.leaving?.has(c.name) || (!!c.nodeName && !!options.leaving?.has(c.nodeName));
  const claimOfNode = new Map<string, NodeClaim>();
  for (const c of s.claims) {
    const node = nodeOf.get(c.name);
    if (node) claimOfNode.set(node.metadata.name, c);
  }
  const boundOn = new Map<string, Pod[]>();
  for (const p of s.bound) {
    const list = boundOn.get(p.spec.nodeName ?? '');
    if (list) list.push(p);
    else boundOn.set(p.spec.nodeName ?? '', [p]);
  }

  const drainingNodes = new Set<string>();
  for (const c of s.claims) {
    const node = nodeOf.get(c.name);
    if (leaving(c) && node) drainingNodes.add(node.metadata.name);
  }
  const displacedAll = [...drainingNodes].flatMap((n) => (boundOn.get(n) ?? []).filter(isReschedulable));

  const { held, heldPods } = holdNominated(s, leaving, indexPods(s.pending), indexPods(displacedAll), options);
  const displaced = displacedAll.filter((p) => !held.has(`${p.metadata.namespace}/${p.metadata.name}`));
  const displacedKeys = new Set(displacedAll.map((p) => `${p.metadata.namespace}/${p.metadata.name}`));

  const existing: ClusterNode[] = [];
  const claimOf = new Map<string, NodeClaim>();
  const csiNodes = new Map((s.csiNodes ?? []).map((c) => [c.metadata.name, c]));
  for (const node of s.nodes) {
    const name = node.metadata.name;
    const claim = claimOfNode.get(name);
    const draining = drainingNodes.has(name);
    // A draining node's movable pods are re-placed, so they must not also pin topology to the node they leave.
    const bound = (boundOn.get(name) ?? []).filter(
      (p) => !draining || !displacedKeys.has(`${p.metadata.namespace}/${p.metadata.name}`),
    );
    // Before its CSINode is written, a node we launched is held to its instance type's limit, as it was planned.
    const volumeLimits =
      csiLimits(csiNodes.get(name)) ??
      (claim ? typeLimits(s.instanceTypes.get(claim.nodePool), claim.instanceType) : undefined);
    existing.push(
      registeredNode(node, claim, bound, claim ? (heldPods.get(claim.name) ?? []) : [], draining, volumeLimits),
    );
    if (claim) claimOf.set(name, claim);
  }

  for (const claim of s.claims) {
    if (nodeOf.has(claim.name) || leaving(claim)) continue;
    existing.push(inflightClaim(claim, s.instanceTypes.get(claim.nodePool) ?? [], heldPods.get(claim.name) ?? []));
    claimOf.set(claim.name, claim);
  }
  return { existing, held, displaced, claimOf, nodeOf };
}

/** Pods nominated to a claim that is still coming (or already serving) are placed there: each pod by the first live
 * claim naming it, unless the claim initialized longer than `nominationTtlMs` ago. */
function holdNominated(
  s: ClusterSnapshot,
  leaving: (c: NodeClaim) => boolean,
  pendingIndex: ReturnType<typeof indexPods>,
  displacedIndex: ReturnType<typeof indexPods>,
  { nominationTtlMs }: ClusterViewOptions,
): { held: Map<string, NodeClaim>; heldPods: Map<string, Pod[]> } {
  const held = new Map<string, NodeClaim>();
  const heldPods = new Map<string, Pod[]>();
  const expired = (c: NodeClaim): boolean => {
    const at = c.state === 'Initialized' ? c.stateTimes.Initialized : undefined;
    return !!at && nominationTtlMs !== undefined && s.now - Date.parse(at) > nominationTtlMs;
  };
  for (const c of s.claims) {
    if (leaving(c)) continue;
    const pods: Pod[] = [];
    if (expired(c)) {
      heldPods.set(c.name, pods);
      continue;
    }
    for (const ref of c.nominatedPods) {
      const pod = resolveRef(pendingIndex, ref) ?? resolveRef(displacedIndex, ref);
      if (!pod || held.has(refKey(ref))) continue;
      held.set(refKey(ref), c);
      pods.push(pod);
    }
    heldPods.set(c.name, pods);
  }
  return { held, heldPods };
}

/** A registered Node as the solver sees it: its pods bound and those held for its claim. */
function registeredNode(
  node: Node,
  claim: NodeClaim | undefined,
  bound: Pod[],
  held: Pod[],
  draining: boolean,
  volumeLimits: Record<string, number> | undefined,
): ClusterNode {
  const name = node.metadata.name;
  return {
    name,
    ...(claim ? { nodeClaim: claim.name } : {}),
    ...(node.metadata.labels?.[LabelNodePool] ? { nodePool: node.metadata.labels[LabelNodePool] } : {}),
    labels: { ...node.metadata.labels },
    taints: (node.spec.taints ?? []).filter((t) => !sameTaint(t, TaintUnregistered)),
    ...(claim ? { startupTaints: claim.startupTaints } : {}),
    allocatable: parseResourceList(node.status?.allocatable),
    pods: [...bound, ...held],
    inflight: claim ? claim.state !== 'Initialized' && claim.state !== 'Draining' : false,
    markedForDeletion: draining || isMarkedForDeletion(node),
    ...(volumeLimits ? { volumeLimits } : {}),
    ...offeringFields(claim, node),
  };
}

/** A claim without a Node yet, as the solver sees it: its planned type's labels and allocatable, and its held pods. */
function inflightClaim(claim: NodeClaim, types: InstanceType[], held: Pod[]): ClusterNode {
  return {
    name: claim.name,
    nodeClaim: claim.name,
    nodePool: claim.nodePool,
    labels: claimLabels(claim, types),
    taints: claim.taints,
    startupTaints: claim.startupTaints,
    allocatable: claimAllocatable(claim, types),
    pods: held,
    inflight: true,
    ...volumeLimitsOf(typeLimits(types, claim.instanceType)),
    ...offeringFields(claim),
  };
}

/** A CSINode's attach limits per driver (`drivers[].allocatable.count`); a driver without a count has no limit, as
 * kube-scheduler reads it. Undefined when the node has no CSINode or none of its drivers is limited. */
function csiLimits(csiNode: CSINode | undefined): Record<string, number> | undefined {
  const limits: Record<string, number> = {};
  let any = false;
  for (const d of csiNode?.spec.drivers ?? []) {
    const count = d.allocatable?.count;
    if (count === undefined) continue;
    limits[d.name] = count;
    any = true;
  }
  return any ? limits : undefined;
}

/** The launched type's volume limits (catalog/ebs-limits.ts); undefined before the type is known. */
function typeLimits(
  types: InstanceType[] | undefined,
  instanceType: string | undefined,
): Record<string, number> | undefined {
  if (!instanceType) return undefined;
  const limits = types?.find((t) => t.name === instanceType)?.volumeLimits;
  return limits ? { ...limits } : undefined;
}

const volumeLimitsOf = (limits: Record<string, number> | undefined): Pick<ClusterNode, 'volumeLimits'> =>
  limits ? { volumeLimits: limits } : {};

export const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

function isMarkedForDeletion(node: Node): boolean {
  return (
    !!node.metadata.deletionTimestamp ||
    !!node.spec.unschedulable ||
    (node.spec.taints ?? []).some((t) => sameTaint(t, TaintDisrupted))
  );
}

function offeringFields(
  claim: NodeClaim | undefined,
  node?: Node,
): Pick<ClusterNode, 'pricePerHour' | 'instanceType' | 'capacityType'> {
  const out: Pick<ClusterNode, 'pricePerHour' | 'instanceType' | 'capacityType'> = {};
  const instanceType = claim?.instanceType ?? node?.metadata.labels?.[LabelInstanceType];
  const capacityType = claim?.capacityType ?? node?.metadata.labels?.[LabelCapacityType];
  if (claim?.pricePerHour !== undefined) out.pricePerHour = claim.pricePerHour;
  if (instanceType) out.instanceType = instanceType;
  if (capacityType === 'spot' || capacityType === 'on-demand' || capacityType === 'reserved')
    out.capacityType = capacityType;
  return out;
}

/** What an in-flight claim's node will be labelled: the launched type's labels once known, the claim's own labels,
 * and its offering. Before launch the zone and type are still open, so only the claim's labels apply. */
function claimLabels(claim: NodeClaim, types: InstanceType[]): Record<string, string> {
  const type = claim.instanceType ? types.find((t) => t.name === claim.instanceType) : undefined;
  const labels: Record<string, string> = {
    ...(type?.labels ?? {}),
    ...claim.labels,
    [LabelNodePool]: claim.nodePool,
    [LabelHostname]: claim.name,
  };
  if (claim.instanceType) labels[LabelInstanceType] = claim.instanceType;
  if (claim.zone) labels[LabelZone] = claim.zone;
  if (claim.capacityType) labels[LabelCapacityType] = claim.capacityType;
  Object.assign(labels, reservationLabels(claim));
  return labels;
}

/** The launched type's allocatable, or before launch the least any option would offer, so pods placed on a pending
 * claim fit whichever type CreateFleet picks. */
function claimAllocatable(claim: NodeClaim, types: InstanceType[]): ResourceList {
  if (claim.allocatable) return { ...claim.allocatable };
  const byName = new Map(types.map((t) => [t.name, t]));
  if (claim.instanceType) {
    const t = byName.get(claim.instanceType);
    if (t) return { ...t.allocatable };
  }
  const options = claim.instanceTypeOptions.flatMap((n) => {
    const t = byName.get(n);
    return t ? [t.allocatable] : [];
  });
  const first = options[0];
  if (!first) return { ...claim.requests };
  const out: ResourceList = { ...first };
  for (const a of options.slice(1)) {
    for (const k of Object.keys(out)) out[k] = Math.min(out[k] as number, a[k] ?? 0);
  }
  return out;
}
