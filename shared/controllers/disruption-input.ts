// The disruption sweep's view of the cluster, read through the same ports and snapshot the provisioner uses: every
// node with its claim, annotations, last pod change and last nomination, plus pending pods, PDBs and the cache of
// unavailable offerings. The simulator passes the activity it saw on its watch stream. A Lambda has no watch stream:
// there a node's last pod change is the later of the `podsChangedAt` its claim carries (a planning sweep stores it when
// the node's pod set changes, departures included; see pod-activity.ts) and its newest pod's creation, and its last
// nomination is the claim's `lastNominatedAt` (written by the provisioner).
import type { Node } from '../api/kube';
import type { NodeClaim } from '../api/nodeclaim';
import type { DisruptionHistory, DisruptionInput, DisruptionNode, DisruptionOptions } from '../disruption';
import type { ClusterNode } from '../scheduling';
import { restampClaimHashes } from './claim-hashes';
import { buildClusterView } from './cluster-nodes';
import type { ControlPlaneDeps } from './deps';
import { newestPodCreation, recordPodChanges } from './pod-activity';
import { type ClusterSnapshot, readSnapshot } from './snapshot';

/** What a watch stream tells the sweep: when each node last gained or lost a pod, and was last nominated to. */
export interface PodActivity {
  readonly lastPodEventAt: ReadonlyMap<string, number>;
  readonly nominatedAt: ReadonlyMap<string, number>;
}

export interface DisruptionView {
  input: DisruptionInput;
  snapshot: ClusterSnapshot;
}

export interface DisruptionInputExtra {
  history?: DisruptionHistory;
  markedForDeletion?: ReadonlySet<string>;
  options?: DisruptionOptions;
  activity?: PodActivity;
  /** Without `activity`: fingerprint each node's pods and store changes on the claims, and re-stamp drift hashes of
   * an older version, first (the planning sweep). */
  trackPodChanges?: boolean;
}

export async function readDisruptionInput(
  deps: ControlPlaneDeps,
  extra: DisruptionInputExtra = {},
): Promise<DisruptionView> {
  const snapshot = await readSnapshot(deps);
  const view = buildClusterView(snapshot);
  let claims = new Map(snapshot.claims.map((c) => [c.name, c]));
  if (!extra.activity && extra.trackPodChanges) {
    claims = await recordPodChanges(deps, view.existing, claims, snapshot.now);
    claims = await restampClaimHashes(deps, claims, snapshot.nodePools, snapshot.nodeClasses);
  }
  const nodeObjects = new Map(snapshot.nodes.map((n) => [n.metadata.name, n]));
  const classes = new Map(snapshot.nodeClasses.map((c) => [c.metadata.name, c]));
  const nodes: DisruptionNode[] = [];
  for (const n of view.existing) {
    const claim = n.nodeClaim ? claims.get(n.nodeClaim) : undefined;
    if (!claim) continue;
    const object = nodeObjects.get(n.name);
    const nodeClass = classes.get(claim.nodeClass);
    const cloudDrift =
      claim.state === 'Initialized' && nodeClass ? await deps.cloud.isDrifted(claim, nodeClass) : undefined;
    const lastPodEventAt = extra.activity ? extra.activity.lastPodEventAt.get(n.name) : lastPodChange(claim, n.pods);
    const nominatedAt = extra.activity ? extra.activity.nominatedAt.get(n.name) : isoTime(claim.lastNominatedAt);
    nodes.push({
      node: extra.markedForDeletion?.has(n.name) ? { ...n, markedForDeletion: true } : n,
      claim,
      ...(object?.metadata.annotations ? { annotations: object.metadata.annotations } : {}),
      ...(lastPodEventAt !== undefined ? { lastPodEventAt } : {}),
      ...(nominatedAt !== undefined ? { nominatedAt } : {}),
      ...(cloudDrift ? { cloudDrift } : {}),
      ...(object && !isReady(object) ? { notReady: true } : {}),
    });
  }
  const pendingPods = snapshot.pending.filter((p) => !view.held.has(`${p.metadata.namespace}/${p.metadata.name}`));
  const input: DisruptionInput = {
    now: snapshot.now,
    cluster: deps.cluster,
    nodes,
    // A NodePool being deleted takes no replacement, and its nodes are terminating already (nodepool-deletion.ts).
    nodePools: snapshot.nodePools.filter((p) => !p.metadata.deletionTimestamp),
    nodeClasses: snapshot.nodeClasses,
    instanceTypes: snapshot.instanceTypes,
    pendingPods,
    pdbs: await deps.kube.listPodDisruptionBudgets(),
    daemonSets: snapshot.daemonSets,
    unavailableOfferings: snapshot.unavailable,
    claimsPerPool: countByPool(snapshot.claims),
    ...(extra.history ? { history: extra.history } : {}),
    ...(extra.options ? { options: extra.options } : {}),
  };
  return { input, snapshot };
}

/** A pod that arrived counts from its creation at once; one that left counts from the sweep that saw it go. */
function lastPodChange(claim: NodeClaim, pods: ClusterNode['pods']): number | undefined {
  const stored = isoTime(claim.podsChangedAt);
  const newest = newestPodCreation(pods);
  if (stored === undefined) return newest;
  return newest === undefined ? stored : Math.max(stored, newest);
}

const isReady = (node: Node): boolean =>
  node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

function isoTime(text: string | undefined): number | undefined {
  const at = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}

function countByPool(claims: readonly NodeClaim[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of claims) out[c.nodePool] = (out[c.nodePool] ?? 0) + 1;
  return out;
}
