// A cluster dump's Karpenter NodeClaims (and Karpenter Nodes it has no NodeClaim for) as the records the control plane
// keeps in its NodeClaimStore, so `simulate` plans on them through the same cluster view the Lambda builds
// (controllers/cluster-nodes.ts): a claim that has launched but whose Node is not initialized is in-flight capacity,
// its startup and ephemeral taints ignored until then. docs/simulate-dump.md, "In-flight capacity", says how each
// state is read; the rules follow Karpenter's cluster state:
// - a NodeClaim without status.providerID has not launched and holds no capacity yet;
// - a NodeClaim being deleted (deletionTimestamp, or InstanceTerminating=True) is leaving: its pods are re-planned;
// - a Node is initialized when it carries karpenter.sh/initialized=true, registered once it exists.
import { conditionOf, type NodeClaimObject } from '../api/cluster-state';
import { uidFor } from '../api/expand';
import type { NodePool } from '../api/karpenter';
import type { Node } from '../api/kube';
import { LabelCapacityType, LabelInstanceType, LabelNodeInitialized, LabelNodePool, LabelZone } from '../api/labels';
import type { NodeClaim, NodeClaimState } from '../api/nodeclaim';
import { parseResourceList } from '../api/resources';

export interface DumpClaims {
  claims: NodeClaim[];
  warnings: string[];
}

export function claimsFromDump(
  objects: readonly NodeClaimObject[],
  nodes: readonly Node[],
  nodePools: readonly NodePool[],
  cluster: string,
  now: string,
): DumpClaims {
  const warnings: string[] = [];
  const claims: NodeClaim[] = [];
  const byProvider = new Map(nodes.flatMap((n) => (n.spec.providerID ? [[n.spec.providerID, n] as const] : [])));
  const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
  const claimed = new Set<string>();
  for (const o of objects) {
    const providerID = o.status?.providerID;
    if (!providerID) {
      warnings.push(
        `NodeClaim/${o.metadata.name}: status.providerID is empty: not launched yet, so it holds no capacity (as in Karpenter)`,
      );
      continue;
    }
    const node = byProvider.get(providerID) ?? (o.status?.nodeName ? byName.get(o.status.nodeName) : undefined);
    if (node) claimed.add(node.metadata.name);
    const nodePool = o.metadata.labels?.[LabelNodePool] ?? '';
    if (!nodePool) warnings.push(`NodeClaim/${o.metadata.name}: metadata.labels: no ${LabelNodePool} label`);
    const claim = record(o, node, nodePool, providerID, cluster, now);
    claims.push(withOwnerUid(claim, o, nodePools));
  }
  // A Karpenter Node whose NodeClaim the dump lacks (`kubectl get nodes` alone): read as its claim would be.
  for (const node of nodes) {
    const nodePool = node.metadata.labels?.[LabelNodePool];
    if (!nodePool || claimed.has(node.metadata.name) || initialized(node)) continue;
    const template = nodePools.find((p) => p.metadata.name === nodePool)?.spec.template.spec;
    claims.push(
      record(
        {
          kind: 'NodeClaim',
          metadata: { name: node.metadata.name, labels: { ...node.metadata.labels } },
          spec: {
            nodeClassRef: { name: template?.nodeClassRef.name ?? '' },
            taints: template?.taints ?? [],
            startupTaints: template?.startupTaints ?? [],
          },
          status: { nodeName: node.metadata.name },
        },
        node,
        nodePool,
        node.spec.providerID ?? `node://${node.metadata.name}`,
        cluster,
        now,
      ),
    );
  }
  return { claims, warnings };
}

/**
 * The claim with the UID of the NodePool its object names as owner, as Karpenter sets it, so a claim of a pool since
 * deleted and re-created under its name is told apart (docs/disruption.md, Deleting a NodePool). Only when the dump's
 * pool of that name has a UID too: a hand-written NodePool has none, and its claims are adopted by name instead.
 */
function withOwnerUid(claim: NodeClaim, o: NodeClaimObject, nodePools: readonly NodePool[]): NodeClaim {
  const listed = nodePools.find((p) => p.metadata.name === claim.nodePool);
  if (!listed?.metadata.uid) return claim;
  const owner = o.metadata.ownerReferences?.find(
    (r) => r.kind === 'NodePool' && r.apiVersion.startsWith('karpenter.sh/') && r.name === claim.nodePool,
  );
  return owner?.uid ? { ...claim, nodePoolUid: owner.uid } : claim;
}

const initialized = (node: Node): boolean => node.metadata.labels?.[LabelNodeInitialized] === 'true';

function stateOf(o: NodeClaimObject, node: Node | undefined): NodeClaimState {
  if (o.metadata.deletionTimestamp || conditionOf(o.status?.conditions, 'InstanceTerminating')?.status === 'True') {
    return 'Draining';
  }
  if (!node) return 'Launched';
  return initialized(node) ? 'Initialized' : 'Registered';
}

function record(
  o: NodeClaimObject,
  node: Node | undefined,
  nodePool: string,
  providerID: string,
  cluster: string,
  now: string,
): NodeClaim {
  const labels = o.metadata.labels ?? {};
  const requirements = o.spec.requirements ?? [];
  const typeLabel = labels[LabelInstanceType] ?? node?.metadata.labels?.[LabelInstanceType];
  const typeRequirement = requirements.find((r) => r.key === LabelInstanceType && r.operator === 'In');
  const capacityType = labels[LabelCapacityType] ?? node?.metadata.labels?.[LabelCapacityType];
  const zone = labels[LabelZone] ?? node?.metadata.labels?.[LabelZone];
  const state = stateOf(o, node);
  const allocatable = parseResourceList(o.status?.allocatable);
  return {
    name: o.metadata.name,
    uid: o.metadata.uid ?? uidFor('NodeClaim', '', o.metadata.name),
    cluster,
    nodePool,
    nodeClass: o.spec.nodeClassRef?.name ?? '',
    state,
    version: 1,
    requirements,
    instanceTypeOptions: typeLabel ? [typeLabel] : [...(typeRequirement?.values ?? [])],
    labels,
    taints: o.spec.taints ?? [],
    startupTaints: o.spec.startupTaints ?? [],
    requests: parseResourceList(o.spec.resources?.requests),
    ...(Object.keys(allocatable).length > 0 ? { allocatable } : {}),
    nominatedPods: [],
    providerID,
    instanceId: providerID.split('/').at(-1) ?? providerID,
    ...(node || o.status?.nodeName ? { nodeName: node?.metadata.name ?? o.status?.nodeName } : {}),
    ...(typeLabel ? { instanceType: typeLabel } : {}),
    ...(zone ? { zone } : {}),
    ...(capacityType === 'spot' || capacityType === 'on-demand' ? { capacityType } : {}),
    createdAt: now,
    stateTimes: { [state]: now },
  };
}
