// The disruption sweep's view of the cluster, read through the same ports and snapshot the provisioner uses: every
// node with its claim, annotations, last pod change and last nomination, plus pending pods, PDBs and the cache of
// unavailable offerings.

import { buildClusterView } from '../../controllers/cluster-nodes';
import type { ControlPlaneDeps } from '../../controllers/deps';
import { type ClusterSnapshot, readSnapshot } from '../../controllers/snapshot';
import type { DisruptionHistory, DisruptionInput, DisruptionNode, DisruptionOptions } from '../../disruption/types';
import type { ClusterActivity } from './activity';

export interface DisruptionView {
  input: DisruptionInput;
  snapshot: ClusterSnapshot;
}

export async function readDisruptionInput(
  deps: ControlPlaneDeps,
  activity: ClusterActivity,
  extra: { history?: DisruptionHistory; markedForDeletion?: ReadonlySet<string>; options?: DisruptionOptions } = {},
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
    const lastPodEventAt = activity.lastPodEventAt.get(n.name);
    const nominatedAt = activity.nominatedAt.get(n.name);
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
