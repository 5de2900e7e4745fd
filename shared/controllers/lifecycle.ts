// NodeClaim lifecycle after launch: a node that joins is matched to its claim by providerID, gets the claim's labels, annotations
// and taints, is marked Registered, then Initialized once it is Ready, its startup taints are gone and the extended
// resources its pods asked for are advertised; then the pods nominated to it are bound. Claims that never launch or
// never register within their timers are failed, their instances terminated and their pods re-planned.

import { isEphemeralTaint } from '../api/ephemeral-taints';
import type { Node, Pod, PodRef } from '../api/kube';
import {
  FinalizerTermination,
  LabelCapacityType,
  LabelInstanceType,
  LabelNodeClaim,
  LabelNodeInitialized,
  LabelNodePool,
  LabelNodeRegistered,
  LabelZone,
  ReservationLabels,
  TaintUnregistered,
} from '../api/labels';
import { type NodeClaim, reservationLabels } from '../api/nodeclaim';
import { indexPods, resolveRef } from '../api/pods';
import { CPU, EPHEMERAL_STORAGE, MEMORY, PODS, parseResourceList } from '../api/resources';
import { ConflictError } from '../errors';
import { matchNodes, sameTaint } from './cluster-nodes';
import type { InstanceDeps } from './deps';
import { emitEvent } from './events';
import { requestReplan } from './messages';
import { message } from './snapshot';
import { startTermination } from './termination';

export interface LifecycleResult {
  registered: string[];
  initialized: string[];
  bound: number;
  /** Claims failed for a launch or registration timeout. */
  timedOut: string[];
  /** Claims whose Node was deleted (gone, or held by the termination finalizer); they are being terminated. */
  nodesDeleted: string[];
}

const BASE_RESOURCES: ReadonlySet<string> = new Set([CPU, MEMORY, PODS, EPHEMERAL_STORAGE]);

export async function reconcileNodes(deps: InstanceDeps): Promise<LifecycleResult> {
  const now = deps.clock.now();
  const [nodes, claims, pending] = await Promise.all([
    deps.kube.listNodes(),
    deps.store.list({ states: ['Pending', 'Launched', 'Registered', 'Initialized'] }),
    deps.config.bindPods ? deps.kube.listPendingPods() : Promise.resolve([] as Pod[]),
  ]);
  const nodeOf = matchNodes(nodes, claims);
  const pendingIndex = indexPods(pending);
  const result: LifecycleResult = { registered: [], initialized: [], bound: 0, timedOut: [], nodesDeleted: [] };
  const replan: PodRef[] = [];

  for (let claim of claims) {
    try {
      const node = nodeOf.get(claim.name);
      if (!node && claim.state === 'Initialized') {
        // The Node went without waiting on the finalizer (it never had it, or someone forced it off): that still
        // means "remove this node"; the instance would otherwise run on unseen. Nothing is left to drain.
        await startTermination(deps, claim, {
          cause: 'Deleted',
          detail: `node ${claim.nodeName} was deleted`,
          deadline: new Date(now).toISOString(),
        });
        result.nodesDeleted.push(claim.name);
        continue;
      }
      if (!node) {
        if (await timeOut(deps, claim, now)) {
          result.timedOut.push(claim.name);
          replan.push(...claim.nominatedPods);
        }
        continue;
      }
      if (node.metadata.deletionTimestamp) {
        // `kubectl delete node`: Karpless's termination finalizer holds the Node while the claim drains (PDBs and
        // terminationGracePeriod respected) and its instance is terminated, as Karpenter's node termination does;
        // termination then takes the finalizer off (docs/kubernetes.md, NodeClaim objects).
        await startTermination(deps, claim, { cause: 'Deleted', detail: `node ${node.metadata.name} was deleted` });
        result.nodesDeleted.push(claim.name);
        continue;
      }
      if (claim.state !== 'Launched' && !node.metadata.finalizers?.includes(FinalizerTermination)) {
        // A node registered before Karpless put the finalizer on (or someone took it off) gets it back.
        await deps.kube.syncNode(node.metadata.name, { labels: {}, taints: [], finalizers: [FinalizerTermination] });
      }
      if (claim.state === 'Launched') {
        claim = await register(deps, claim, node);
        result.registered.push(claim.name);
      }
      if (claim.state === 'Registered' && isInitialized(claim, node)) {
        await deps.kube.syncNode(node.metadata.name, { labels: { [LabelNodeInitialized]: 'true' }, taints: [] });
        claim = await deps.store.transition(claim, 'Initialized');
        result.initialized.push(claim.name);
        deps.metric('NodeClaimsInitialized', 1, 'Count', { nodePool: claim.nodePool });
        const launchedAt = claim.stateTimes.Launched ?? claim.createdAt;
        deps.metric('InitializationLatency', now - Date.parse(launchedAt), 'Milliseconds');
        deps.log.info('initialized', { nodeClaim: claim.name, node: node.metadata.name });
      }
      if (claim.state === 'Initialized' && deps.config.bindPods) {
        result.bound += await bindNominated(deps, claim, node.metadata.name, pendingIndex);
      }
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      // Another invocation moved this claim first; the next NodeChanged hint picks it up from there.
      deps.log.info('claim changed concurrently', { nodeClaim: claim.name, error: message(err) });
    }
  }
  if (replan.length > 0) await requestReplan(deps, 'claims timed out', replan);
  return result;
}

/** Fails a claim past its launch or registration deadline and terminates whatever instance it may own. */
async function timeOut(deps: InstanceDeps, claim: NodeClaim, now: number): Promise<boolean> {
  let reason: string | undefined;
  if (claim.state === 'Pending' && now - Date.parse(claim.createdAt) > deps.config.launchTimeoutMs) {
    reason = 'LaunchTimeout';
  }
  const launchedAt = claim.stateTimes.Launched;
  if (claim.state === 'Launched' && launchedAt && now - Date.parse(launchedAt) > deps.config.registrationTimeoutMs) {
    reason = 'RegistrationTimeout';
  }
  // A registered node that vanished before initializing gets the same allowance, counted from registration.
  const registeredAt = claim.stateTimes.Registered;
  if (
    claim.state === 'Registered' &&
    registeredAt &&
    now - Date.parse(registeredAt) > deps.config.registrationTimeoutMs
  ) {
    reason = 'NodeLost';
  }
  if (!reason) return false;
  const detail =
    reason === 'LaunchTimeout'
      ? `not launched within ${deps.config.launchTimeoutMs / 1000}s`
      : reason === 'NodeLost'
        ? `node ${claim.nodeName} disappeared before it initialized`
        : `node did not register within ${deps.config.registrationTimeoutMs / 1000}s of launch`;
  const failed = await deps.store.transition(claim, 'Failed', { failure: { reason, message: detail } });
  deps.metric('NodeClaimsTimedOut', 1, 'Count', { reason });
  deps.log.warn('claim timed out', { nodeClaim: claim.name, reason, instanceId: claim.instanceId });
  await emitEvent(deps, {
    involved: { kind: 'NodeClaim', name: claim.name },
    type: 'Warning',
    reason,
    message: detail,
  });
  // A Pending claim may still have an instance from a launch that died before recording it; GC finds it by tag.
  if (failed.instanceId) await deps.cloud.delete(failed.instanceId);
  if (failed.nodeName) await deps.kube.deleteNode(failed.nodeName);
  await deps.store.transition(failed, 'Terminated');
  return true;
}

async function register(deps: InstanceDeps, claim: NodeClaim, node: Node): Promise<NodeClaim> {
  const labels: Record<string, string> = {
    ...claim.labels,
    [LabelNodePool]: claim.nodePool,
    [LabelNodeRegistered]: 'true',
    [LabelNodeClaim]: claim.name,
  };
  if (claim.instanceType) labels[LabelInstanceType] = claim.instanceType;
  if (claim.zone) labels[LabelZone] = claim.zone;
  if (claim.capacityType) labels[LabelCapacityType] = claim.capacityType;
  Object.assign(labels, reservationLabels(claim));
  // The claim's taints are added if the kubelet did not register with them; startup taints are left to whoever
  // removes them, so they are never put back after removal. The unregistered taint goes at registration.
  await deps.kube.syncNode(node.metadata.name, {
    labels,
    ...(claim.annotations ? { annotations: claim.annotations } : {}),
    taints: claim.taints,
    removeTaints: [TaintUnregistered],
    // A claim demoted to on-demand before its node registered: the kubelet's reservation labels go.
    ...(claim.capacityReservation ? {} : { removeLabels: ReservationLabels }),
    finalizers: [FinalizerTermination],
  });
  const registered = await deps.store.transition(claim, 'Registered', { nodeName: node.metadata.name });
  deps.metric('NodeClaimsRegistered', 1, 'Count', { nodePool: claim.nodePool });
  deps.log.info('registered', { nodeClaim: claim.name, node: node.metadata.name });
  return registered;
}

/** Ready, startup taints gone, and every extended resource the claim's pods asked for advertised. */
export function isInitialized(claim: NodeClaim, node: Node): boolean {
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready) return false;
  const taints = node.spec.taints ?? [];
  // Karpenter's known ephemeral taints (karpenter.sh/unregistered among them): kubelet's not-ready, unreachable, the
  // cloud provider's uninitialized taint and the Node Readiness Controller's readiness.k8s.io/ family.
  if (taints.some(isEphemeralTaint)) return false;
  if (claim.startupTaints.some((s) => taints.some((t) => sameTaint(t, s)))) return false;
  const allocatable = parseResourceList(node.status?.allocatable);
  for (const [name, quantity] of Object.entries(claim.requests)) {
    if (BASE_RESOURCES.has(name) || quantity <= 0) continue;
    if (!((allocatable[name] ?? 0) > 0)) return false;
  }
  return true;
}

/** Binds the claim's nominated pods that are still pending. A conflict (kube-scheduler got there first) and a
 * vanished pod are both fine. */
async function bindNominated(
  deps: InstanceDeps,
  claim: NodeClaim,
  nodeName: string,
  pendingIndex: Map<string, Pod>,
): Promise<number> {
  let bound = 0;
  for (const ref of claim.nominatedPods) {
    const pod = resolveRef(pendingIndex, ref);
    if (!pod) continue;
    const outcome = await deps.kube.bindPod(
      {
        namespace: pod.metadata.namespace,
        name: pod.metadata.name,
        ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}),
      },
      nodeName,
    );
    if (outcome === 'bound') bound++;
  }
  if (bound > 0) {
    deps.metric('PodsBound', bound, 'Count');
    deps.log.info('bound nominated pods', { nodeClaim: claim.name, node: nodeName, pods: bound });
  }
  return bound;
}
