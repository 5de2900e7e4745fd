// The disruption sweep's view of the cluster, read through the same ports and snapshot the provisioner uses: every
// node with its claim, annotations, last pod change and last nomination, plus pending pods, PDBs and the cache of
// unavailable offerings. The simulator passes the activity it saw on its watch stream; a Lambda has no watch stream,
// so without one a node's last pod change is the newest creation time of its pods (or its initialization).
import type { DisruptionHistory, DisruptionInput, DisruptionNode, DisruptionOptions } from '../disruption/types';
import { buildClusterView } from './cluster-nodes';
import type { ControlPlaneDeps } from './deps';
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
}

export async function readDisruptionInput(
  deps: ControlPlaneDeps,
  extra: DisruptionInputExtra = {},
): Promise<DisruptionView> {
  const snapshot = await readSnapshot(deps);
  const view = buildClusterView(snapshot);
  const claims = new Map(snapshot.claims.map((c) => [c.name, c]));
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
    const lastPodEventAt = extra.activity ? extra.activity.lastPodEventAt.get(n.name) : newestPod(n.pods);
    const nominatedAt = extra.activity?.nominatedAt.get(n.name);
    nodes.push({
      node: extra.markedForDeletion?.has(n.name) ? { ...n, markedForDeletion: true } : n,
      claim,
      ...(object?.metadata.annotations ? { annotations: object.metadata.annotations } : {}),
      ...(lastPodEventAt !== undefined ? { lastPodEventAt } : {}),
      ...(nominatedAt !== undefined ? { nominatedAt } : {}),
      ...(cloudDrift ? { cloudDrift } : {}),
    });
  }
  const pendingPods = snapshot.pending.filter((p) => !view.held.has(`${p.metadata.namespace}/${p.metadata.name}`));
  const input: DisruptionInput = {
    now: snapshot.now,
    cluster: deps.cluster,
    nodes,
    nodePools: snapshot.nodePools,
    nodeClasses: snapshot.nodeClasses,
    instanceTypes: snapshot.instanceTypes,
    pendingPods,
    pdbs: await deps.kube.listPodDisruptionBudgets(),
    daemonSets: snapshot.daemonSets,
    unavailableOfferings: snapshot.unavailable,
    ...(extra.history ? { history: extra.history } : {}),
    ...(extra.options ? { options: extra.options } : {}),
  };
  return { input, snapshot };
}

/** The newest pod's creation time: a pod that arrived counts; one that left cannot be seen without a watch. */
function newestPod(pods: readonly { metadata: { creationTimestamp?: string } }[]): number | undefined {
  let newest: number | undefined;
  for (const p of pods) {
    const at = p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : Number.NaN;
    if (!Number.isNaN(at) && (newest === undefined || at > newest)) newest = at;
  }
  return newest;
}
