// One consistent read of everything a provisioning pass decides on. Messages are only hints, so every pass starts
// here: the API server for pods, nodes and Karpenter objects, the store for claims and the unavailable cache, the
// cloud for instance types as each EC2NodeClass sees them.

import type { ClusterObjects } from '../api/cluster-objects';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { otherProviderNodeClass } from '../api/node-class-ref';
import { LIVE_STATES, type NodeClaim } from '../api/nodeclaim';
import type { NodeOverlay } from '../api/nodeoverlay';
import { nodeOverlayErrors } from '../api/validate-nodeoverlay';
import { applyNodeOverlays, type OverlayConflict, type OverlayPool } from '../catalog/overlay';
import type { InstanceType, UnavailableOffering } from '../catalog/types';
import type { ControlPlaneDeps } from './deps';
import { applyUnavailable } from './offerings';
import { ownedView } from './ownership';

/** The cluster's Nodes, Karpenter objects and the objects scheduling reads (its CSINodes absent from snapshots built
 * without them), with the pods split, the live claims and the instance types. */
export interface ClusterSnapshot
  extends Pick<
      ClusterObjects,
      'nodes' | 'nodePools' | 'nodeClasses' | 'daemonSets' | 'pvcs' | 'pvs' | 'storageClasses' | 'namespaces'
    >,
    Partial<Pick<ClusterObjects, 'csiNodes'>> {
  now: number;
  pending: Pod[];
  bound: Pod[];
  /** Claims in a live state (Pending through Draining). */
  claims: NodeClaim[];
  unavailable: UnavailableOffering[];
  /** Instance types per NodePool name, resolved through its EC2NodeClass, unavailable offerings marked. */
  instanceTypes: Map<string, InstanceType[]>;
  /** NodePools that could not be resolved, with the reason (missing EC2NodeClass, cloud error). */
  problems: { nodePool: string; reason: string }[];
  nodeOverlays: NodeOverlay[];
  /** NodeOverlays left out because they conflict with another of the same weight. */
  overlayConflicts: OverlayConflict[];
}

/** The NodePool facts a NodeOverlay may select on: its name and template labels. */
export const overlayPool = (p: NodePool): OverlayPool => ({
  name: p.metadata.name,
  ...(p.spec.template.metadata?.labels ? { labels: p.spec.template.metadata.labels } : {}),
});

export async function readSnapshot(deps: ControlPlaneDeps): Promise<ClusterSnapshot> {
  const { kube, store } = deps;
  const now = deps.clock.now();
  const reads = {
    pending: kube.listPendingPods(),
    bound: kube.listPods(),
    nodes: kube.listNodes(),
    claims: store.list({ states: LIVE_STATES }),
    nodePools: kube.listNodePools(),
    nodeClasses: kube.listNodeClasses(),
    daemonSets: kube.listDaemonSets(),
    pvcs: kube.listPersistentVolumeClaims(),
    pvs: kube.listPersistentVolumes(),
    storageClasses: kube.listStorageClasses(),
    namespaces: kube.listNamespaces(),
    nodeOverlays: kube.listNodeOverlays ? kube.listNodeOverlays() : Promise.resolve([]),
    csiNodes: kube.listCSINodes ? kube.listCSINodes() : Promise.resolve([]),
    unavailable: store.listUnavailable(now),
  };
  const all = await allByName(reads);
  // Pools Karpless does not own, and pods only they could serve, are Karpenter's during a cut-over (ownership.ts).
  const owned = ownedView(all.nodePools, all.pending, deps.config.ownedNodePools);
  logOtherProviderPools(deps, all.nodePools);
  const read = { ...all, nodePools: owned.nodePools, pending: owned.pending };
  // A NodePool whose status says Ready=False is not provisioned from (as Karpenter skips it); it is named in the
  // problems so FailedScheduling events and the decision record say why it was not tried.
  // So is one whose EC2NodeClass says Ready=False, before the Sweep tick publishes the pool's NodeClassReady=False
  // (Karpenter's NodePool readiness follows its class at once; a launch for it would be refused, launch.ts).
  const whyNotReady = (p: NodePool) => nodePoolNotReady(p) ?? nodeClassNotReady(p, read.nodeClasses);
  const notReady = read.nodePools.flatMap((p) => {
    const reason = whyNotReady(p);
    return reason ? [{ nodePool: p.metadata.name, reason }] : [];
  });
  const readyPools = read.nodePools.filter((p) => !whyNotReady(p));
  const resolved = await resolveInstanceTypes(deps, readyPools, read.nodeClasses, read.unavailable);
  resolved.problems.unshift(...notReady);
  // NodeOverlays change prices and capacities once, here, before anything reads them (docs/api.md, "NodeOverlay").
  const { instanceTypes, conflicts } = applyClusterOverlays(read.nodeOverlays, read.nodePools, resolved.instanceTypes);
  for (const c of conflicts) deps.log.warn('NodeOverlay not applied', { nodeOverlay: c.overlay, reason: c.reason });
  return { now, ...read, instanceTypes, problems: resolved.problems, overlayConflicts: conflicts };
}

/** One line per pass naming the NodePools left to another provider, so a pool that gets no nodes says why. */
function logOtherProviderPools(deps: ControlPlaneDeps, pools: readonly NodePool[]): void {
  const others = pools.flatMap((p) => {
    const nodeClass = otherProviderNodeClass(p.spec.template.spec.nodeClassRef);
    return nodeClass ? [`${p.metadata.name} (${nodeClass})`] : [];
  });
  if (others.length > 0) deps.log.info('NodePools left to another provider', { nodePools: others });
}

/** The cluster's NodeOverlays applied to each NodePool's types. One that fails validation is applied nowhere, as
 * Karpenter's runtime validation does, and is returned with the conflicts. */
export function applyClusterOverlays(
  overlays: readonly NodeOverlay[],
  pools: readonly NodePool[],
  instanceTypes: ReadonlyMap<string, InstanceType[]>,
): { instanceTypes: Map<string, InstanceType[]>; conflicts: OverlayConflict[] } {
  const invalid: OverlayConflict[] = [];
  const valid = overlays.filter((o) => {
    const errors = nodeOverlayErrors(o);
    if (errors.length > 0) invalid.push({ overlay: o.metadata.name, reason: `fails validation: ${errors.join('; ')}` });
    return errors.length === 0;
  });
  const applied = applyNodeOverlays(valid, pools.map(overlayPool), instanceTypes);
  return { instanceTypes: applied.instanceTypes, conflicts: [...invalid, ...applied.conflicts] };
}

/** Why a NodePool is not ready, from the Ready condition of its status; undefined when Ready is True or absent (a
 * NodePool file from disk carries no status). */
export function nodePoolNotReady(pool: NodePool): string | undefined {
  const ready = pool.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'False') return undefined;
  const why = [ready.reason, ready.message].filter(Boolean).join(': ');
  return `status.conditions Ready=False${why ? ` (${why})` : ''}`;
}

/** Why a NodePool's EC2NodeClass is not ready, from the class's Ready condition; undefined when it is True, absent, or
 * the class is missing (a launch reports that). */
export function nodeClassNotReady(pool: NodePool, nodeClasses: readonly EC2NodeClass[]): string | undefined {
  const ref = pool.spec.template.spec.nodeClassRef.name;
  const ready = nodeClasses.find((c) => c.metadata.name === ref)?.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'False') return undefined;
  const why = [ready.reason, ready.message].filter(Boolean).join(': ');
  return `EC2NodeClass ${ref} is not ready${why ? ` (${why})` : ''}`;
}

/** Promise.all over an object's values, keeping each result under its key. */
async function allByName<T extends Record<string, Promise<unknown>>>(
  promises: T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const keys = Object.keys(promises) as (keyof T)[];
  const values = await Promise.all(keys.map((k) => promises[k]));
  return Object.fromEntries(keys.map((k, i) => [k, values[i]])) as { [K in keyof T]: Awaited<T[K]> };
}

/** Instance types per NodePool through its EC2NodeClass, asking the cloud once per EC2NodeClass. */
export async function resolveInstanceTypes(
  deps: Pick<ControlPlaneDeps, 'cloud' | 'log'>,
  nodePools: NodePool[],
  nodeClasses: EC2NodeClass[],
  unavailable: UnavailableOffering[],
): Promise<{ instanceTypes: Map<string, InstanceType[]>; problems: { nodePool: string; reason: string }[] }> {
  const classes = new Map(nodeClasses.map((c) => [c.metadata.name, c]));
  const perClass = new Map<string, Promise<InstanceType[]>>();
  const instanceTypes = new Map<string, InstanceType[]>();
  const problems: { nodePool: string; reason: string }[] = [];
  for (const pool of nodePools) {
    const ref = pool.spec.template.spec.nodeClassRef.name;
    const nodeClass = classes.get(ref);
    if (!nodeClass) {
      problems.push({ nodePool: pool.metadata.name, reason: `EC2NodeClass ${ref} not found` });
      continue;
    }
    let types = perClass.get(ref);
    if (!types) {
      types = deps.cloud.getInstanceTypes(nodeClass).then((t) => applyUnavailable(t, unavailable));
      perClass.set(ref, types);
    }
    try {
      instanceTypes.set(pool.metadata.name, await types);
    } catch (err) {
      problems.push({
        nodePool: pool.metadata.name,
        reason: `instance types for EC2NodeClass ${ref}: ${message(err)}`,
      });
    }
  }
  for (const p of problems) deps.log.warn('NodePool skipped', { nodePool: p.nodePool, reason: p.reason });
  return { instanceTypes, problems };
}

export const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
