// Publishes NodePool and EC2NodeClass status in Karpenter v1's shape on the Sweep tick, so `kubectl get nodepools`
// shows each pool's nodes and readiness and `kubectl get ec2nodeclasses` what a class resolved to and why it cannot
// launch, as under Karpenter. A status is written only when it changed; a condition keeps its transition time while
// its status holds. Publishing is a report: its failure is logged and never fails the tick.

import { stableJson } from '../api/hash';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import { isProviderNodePool } from '../api/node-class-ref';
import { LIVE_STATES, type NodeClaim } from '../api/nodeclaim';
import { addInto, formatResourceList, type ResourceList } from '../api/resources';
import type { Condition, EC2NodeClassStatus, NodePoolStatus, StatusUpdate } from '../api/status';
import { ClusterApiError } from '../errors';
import type { NodeClassResolution } from '../ports';
import type { ControlPlaneDeps } from './deps';
import { type ConditionInput, registrationHealthy } from './registration-health';
import { message } from './snapshot';

export interface StatusResult {
  /** `Kind/name` of each object whose status was written. */
  replaced: string[];
  /** `Kind/name` of each object whose status the API server refused (logged with the reason). */
  failed: string[];
  unchanged: number;
}

export async function publishStatus(deps: ControlPlaneDeps): Promise<StatusResult> {
  const owned = deps.config.ownedNodePools;
  const [allPools, allClasses, claims] = await Promise.all([
    deps.kube.listNodePools(),
    deps.kube.listNodeClasses(),
    // Every claim, terminated ones too: the NodeRegistrationHealthy condition reads their launch outcomes.
    deps.store.list(),
  ]);
  // Pools Karpless does not own, and classes only they use, keep the status their owner (Karpenter, during a
  // cut-over) writes (ownership.ts).
  // Another provider's pools (EKS Auto Mode's) keep the status their owner writes.
  const pools = allPools.filter((p) => isProviderNodePool(p) && (!owned || owned.includes(p.metadata.name)));
  const usedClasses = new Set(pools.map((p) => p.spec.template.spec.nodeClassRef.name));
  const classes = owned ? allClasses.filter((c) => usedClasses.has(c.metadata.name)) : allClasses;
  const now = new Date(deps.clock.now()).toISOString();
  const result: StatusResult = { replaced: [], failed: [], unchanged: 0 };
  const readiness = new Map<string, NodeClassResolution['ready']>();
  const updates: StatusUpdate[] = [];
  if (deps.cloud.describeNodeClass) {
    for (const nodeClass of classes) {
      const resolution = await describe(deps, deps.cloud.describeNodeClass.bind(deps.cloud), nodeClass);
      readiness.set(nodeClass.metadata.name, resolution.ready);
      const status = nodeClassStatus(nodeClass, resolution, now);
      if (!sameStatus(nodeClass.status, status)) {
        updates.push({ kind: 'EC2NodeClass', name: nodeClass.metadata.name, status });
      }
    }
  }
  const classByName = new Map(classes.map((c) => [c.metadata.name, c]));
  for (const pool of pools) {
    const nodeClass = classByName.get(pool.spec.template.spec.nodeClassRef.name);
    const mine = claims.filter((c) => c.nodePool === pool.metadata.name);
    const live = mine.filter((c) => LIVE_STATES.includes(c.state));
    const resources = await poolResources(deps, live, nodeClass);
    const status = nodePoolStatus(
      pool,
      nodeClass,
      readiness,
      resources,
      now,
      registrationHealthy(pool, nodeClass, mine),
    );
    if (!sameStatus(pool.status, status)) updates.push({ kind: 'NodePool', name: pool.metadata.name, status });
  }
  const notReady = countNotReady(pools, updates);
  deps.metric('NodePoolsNotReady', notReady, 'Count');
  const checked = pools.length + (deps.cloud.describeNodeClass ? classes.length : 0);
  result.unchanged = checked - updates.length;
  for (const update of updates) {
    const name = `${update.kind}/${update.name}`;
    try {
      if ((await deps.kube.replaceStatus(update)) === 'replaced') result.replaced.push(name);
    } catch (err) {
      // One object the API server refuses (a stricter CRD schema, say) must not keep the others stale.
      result.failed.push(name);
      deps.log.warn('status not published', { object: name, error: message(err), ...rbacHint(err) });
    }
  }
  if (result.replaced.length > 0) deps.log.info('status published', { replaced: result.replaced });
  return result;
}

/** A 403 here almost always means a ClusterRole from before status publishing: say how to fix it. */
function rbacHint(err: unknown): { hint?: string } {
  return err instanceof ClusterApiError && err.status === 403
    ? {
        hint: 're-apply the functions ClusterRole (karpless forwarder rbac): it grants patch on nodepools/status and ec2nodeclasses/status',
      }
    : {};
}

/** A class that fails to resolve (AccessDenied, throttling) cannot launch either: it keeps what it resolved last and
 * says why it is not ready now, rather than failing every other object's status. */
async function describe(
  deps: ControlPlaneDeps,
  resolve: (nodeClass: EC2NodeClass) => Promise<NodeClassResolution>,
  nodeClass: EC2NodeClass,
): Promise<NodeClassResolution> {
  try {
    return await resolve(nodeClass);
  } catch (err) {
    const last = nodeClass.status;
    const why = `EC2NodeClass ${nodeClass.metadata.name} could not be resolved: ${message(err)}`;
    deps.log.warn('EC2NodeClass not resolved for its status', {
      nodeClass: nodeClass.metadata.name,
      error: message(err),
    });
    return {
      subnets: last?.subnets ?? [],
      securityGroups: last?.securityGroups ?? [],
      amis: last?.amis ?? [],
      ...(last?.instanceProfile ? { instanceProfile: last.instanceProfile } : {}),
      ready: { status: 'False', reason: 'ResolutionFailed', message: why },
    };
  }
}

/** NodePools whose Ready condition is False, after this pass's updates. */
function countNotReady(pools: readonly NodePool[], updates: readonly StatusUpdate[]): number {
  const written = new Map(updates.flatMap((u) => (u.kind === 'NodePool' ? [[u.name, u.status] as const] : [])));
  return pools.filter((p) => {
    const status = written.get(p.metadata.name) ?? p.status;
    return status?.conditions.find((c) => c.type === 'Ready')?.status === 'False';
  }).length;
}

/** publishStatus for the Sweep tick: a failure (RBAC missing, the API server busy) is a warning, not a failed tick. */
export async function publishStatusQuietly(deps: ControlPlaneDeps): Promise<StatusResult | undefined> {
  try {
    return await publishStatus(deps);
  } catch (err) {
    deps.log.warn('status not published', { error: message(err) });
    return undefined;
  }
}

export function nodeClassStatus(nodeClass: EC2NodeClass, r: NodeClassResolution, now: string): EC2NodeClassStatus {
  const part = (type: string, ok: boolean, reason: string, message: string): ConditionInput =>
    ok ? { type, status: 'True', reason: type, message: '' } : { type, status: 'False', reason, message };
  const conditions: ConditionInput[] = [
    part('SubnetsReady', r.subnets.length > 0, 'SubnetsNotFound', 'no subnet matched subnetSelectorTerms'),
    part(
      'SecurityGroupsReady',
      r.securityGroups.length > 0,
      'SecurityGroupsNotFound',
      'no security group matched securityGroupSelectorTerms',
    ),
    part('AMIsReady', r.amis.length > 0, 'AMIsNotFound', 'no AMI matched amiSelectorTerms'),
    part(
      'InstanceProfileReady',
      r.instanceProfile !== undefined,
      'InstanceProfileNotFound',
      'no instance profile for the role or instanceProfile',
    ),
    ...reservationsCondition(nodeClass),
    r.ready.status === 'True'
      ? { type: 'Ready', status: 'True', reason: 'Ready', message: '' }
      : { type: 'Ready', status: 'False', reason: r.ready.reason, message: r.ready.message },
  ];
  const { ready: _ready, ...parts } = r;
  return { ...parts, conditions: transitions(nodeClass.status?.conditions, conditions, nodeClass.metadata, now) };
}

/** Only for a class that selects capacity reservations: True once they are resolved (status.capacityReservations,
 * possibly empty), as Karpenter sets it. It never holds Ready back: a class without a usable reservation still launches
 * on-demand or spot where its pools allow. */
function reservationsCondition(nodeClass: EC2NodeClass): ConditionInput[] {
  if (!nodeClass.spec.capacityReservationSelectorTerms?.length) return [];
  return [{ type: 'CapacityReservationsReady', status: 'True', reason: 'CapacityReservationsReady', message: '' }];
}

export function nodePoolStatus(
  pool: NodePool,
  nodeClass: EC2NodeClass | undefined,
  readiness: ReadonlyMap<string, NodeClassResolution['ready']>,
  resources: Record<string, string>,
  now: string,
  registration?: ConditionInput,
): NodePoolStatus {
  const ref = pool.spec.template.spec.nodeClassRef.name;
  const ready = readiness.get(ref);
  const classReady: ConditionInput = !nodeClass
    ? { type: 'NodeClassReady', status: 'False', reason: 'NodeClassNotFound', message: `EC2NodeClass ${ref} not found` }
    : ready && ready.status !== 'True'
      ? { type: 'NodeClassReady', status: 'False', reason: 'NodeClassNotReady', message: ready.message }
      : { type: 'NodeClassReady', status: 'True', reason: 'NodeClassReady', message: '' };
  // The API server validated the NodePool against its CRD schema when it was written; nothing here re-checks it.
  const valid: ConditionInput = {
    type: 'ValidationSucceeded',
    status: 'True',
    reason: 'ValidationSucceeded',
    message: '',
  };
  const overall: ConditionInput =
    classReady.status === 'True'
      ? { type: 'Ready', status: 'True', reason: 'Ready', message: '' }
      : { type: 'Ready', status: 'False', reason: classReady.reason, message: classReady.message };
  return {
    resources,
    nodes: Number(resources.nodes ?? 0),
    conditions: transitions(
      pool.status?.conditions,
      [valid, classReady, ...(registration ? [registration] : []), overall],
      pool.metadata,
      now,
    ),
    ...(nodeClass?.metadata.generation !== undefined
      ? { nodeClassObservedGeneration: nodeClass.metadata.generation }
      : {}),
  };
}

/** The capacity of the pool's launched nodes, summed, and their count; Karpenter's status.resources. */
async function poolResources(
  deps: ControlPlaneDeps,
  claims: readonly NodeClaim[],
  nodeClass: EC2NodeClass | undefined,
): Promise<Record<string, string>> {
  const launched = claims.filter((c) => c.instanceType !== undefined && c.state !== 'Pending');
  const total: ResourceList = {};
  if (launched.length > 0 && nodeClass) {
    const types = new Map((await deps.cloud.getInstanceTypes(nodeClass)).map((t) => [t.name, t.capacity]));
    for (const c of launched) addInto(total, types.get(c.instanceType as string) ?? {});
  }
  return { ...formatResourceList(total), nodes: String(launched.length) };
}

/** Stamps each condition: its previous transition time while its status is unchanged, else now. */
function transitions(
  previous: readonly Condition[] | undefined,
  next: readonly ConditionInput[],
  meta: { generation?: number },
  now: string,
): Condition[] {
  return next.map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    return {
      ...c,
      lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now,
      ...(meta.generation !== undefined ? { observedGeneration: meta.generation } : {}),
    };
  });
}

/** Field order does not matter; the API server may return keys in any order. */
const sameStatus = (a: unknown, b: unknown): boolean => stableJson(a) === stableJson(b);
