// The termination state machine (docs/architecture.md, The flow). A drain can outlive a Lambda, so each call does
// one bounded step from what it reads and the caller re-queues the claim with a delay:
//   cordon + disrupted taint → evict (Karpenter's order, PDB-aware) → TerminateInstances → delete Node → Terminated.
// Eviction order follows Karpenter: non-critical non-DaemonSet pods, then non-critical DaemonSet pods, then critical
// non-DaemonSet, then critical DaemonSet pods; a group is evicted only once every earlier group is gone. Mirror
// (static) pods are never evicted; pods that tolerate the disrupted taint are left to go with the node; pods
// annotated do-not-disrupt are not evicted but are waited for. After the claim's terminationGracePeriod (or an
// interruption's deadline) the drain stops waiting and the instance is terminated.

import { claimTerminationGracePeriod } from '../api/claim-template';
import { doNotDisruptActive } from '../api/do-not-disrupt';
import { newId } from '../api/ids';
import type { Pod } from '../api/kube';
import { AnnotationDoNotDisrupt } from '../api/labels';
import type { DisruptionCause, NodeClaim } from '../api/nodeclaim';
import { isCritical, isDaemonSetPod, isMirrorPod, isTerminal, podRef, toleratesDisruption } from '../api/pods';
import { parseDuration } from '../api/quantity';
import { ConflictError } from '../errors';
import { NODEPOOL_DIMENSION } from '../metrics';
import type { InstanceDeps } from './deps';
import { emitEvent } from './events';
import { evictionReason, failedDraining, podEvicted, terminationGracePeriodExpiring } from './karpenter-events';
import { queueTermination } from './messages';

export interface TerminationStep {
  done: boolean;
  requeueAfterSeconds?: number;
  /** The claim is live and no decision started its termination: the step did nothing (docs/disruption.md, A
   * Terminate message ends only what a decision chose). */
  refused?: true;
}

export interface StartTerminationOptions {
  cause: DisruptionCause;
  detail?: string;
  /** Stop waiting for the drain at this time (an interruption's or a scheduled event's deadline). */
  deadline?: string;
  /** Claims launched to take this one's pods. */
  replacements?: string[];
  /** The disruption command this claim is part of: its claims share it, so the history counts the command once. */
  commandId?: string;
}

/** Moves a claim to Draining (idempotent) and queues its first termination step. Returns the claim as stored, or
 * undefined when it is already terminated or gone. */
export async function startTermination(
  deps: InstanceDeps,
  claim: NodeClaim,
  options: StartTerminationOptions,
): Promise<NodeClaim | undefined> {
  let current: NodeClaim | undefined = claim;
  for (let attempt = 0; attempt < 3 && current; attempt++) {
    if (current.state === 'Terminated') return undefined;
    if (current.state === 'Draining' || current.state === 'Failed') {
      await queueTermination(deps, current.name);
      return current;
    }
    const at = new Date(deps.clock.now()).toISOString();
    try {
      const draining = await deps.store.transition(current, 'Draining', {
        disruption: {
          cause: options.cause,
          at,
          ...(options.detail ? { detail: options.detail } : {}),
          ...(options.replacements ? { replacements: options.replacements } : {}),
          ...(options.commandId ? { commandId: options.commandId } : {}),
        },
        drain: { startedAt: at, ...(options.deadline ? { deadline: options.deadline } : {}), step: 'cordon' },
      });
      deps.metric('DisruptionStarted', 1, 'Count', { cause: options.cause });
      // Karpenter's karpenter_nodeclaims_disrupted_total: every NodeClaim the control plane disrupts, by reason (a
      // manual delete, of the claim or of its NodePool, is the user's, not a disruption).
      if (!USER_DELETIONS.has(options.cause)) {
        deps.metric('NodeClaimsDisrupted', 1, 'Count', {
          reason: disruptedReason(options.cause),
          [NODEPOOL_DIMENSION]: claim.nodePool,
        });
      }
      deps.log.info('termination started', { nodeClaim: claim.name, cause: options.cause, deadline: options.deadline });
      await queueTermination(deps, draining.name);
      return draining;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      current = await deps.store.get(claim.name);
    }
  }
  return current;
}

/** Causes that are someone's delete, which Karpenter does not count as disruptions: NodeClaimsTerminated and
 * DisruptionStarted still carry them, by cause. */
const USER_DELETIONS: ReadonlySet<DisruptionCause> = /* @__PURE__ */ new Set<DisruptionCause>([
  'Deleted',
  'NodePoolDeleted',
]);

/** A cause as the metric's `reason` label, in Karpenter's snake case (`GarbageCollected` → `garbage_collected`). */
export function disruptedReason(cause: DisruptionCause): string {
  return cause.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toLowerCase();
}

type Group = 'non-critical' | 'non-critical-daemonset' | 'critical' | 'critical-daemonset';
const GROUPS: readonly Group[] = ['non-critical', 'non-critical-daemonset', 'critical', 'critical-daemonset'];

export function evictionGroup(pod: Pod): Group {
  const daemon = isDaemonSetPod(pod);
  if (isCritical(pod)) return daemon ? 'critical-daemonset' : 'critical';
  return daemon ? 'non-critical-daemonset' : 'non-critical';
}

/** Pods the drain waits for: everything on the node except mirror pods, finished pods and pods that tolerate the
 * disrupted taint. */
export const isDrainable = (pod: Pod): boolean => !isMirrorPod(pod) && !isTerminal(pod) && !toleratesDisruption(pod);

/** Pods grouped in eviction order; empty groups are kept so callers can see the order. */
export function groupForEviction(pods: Pod[]): Pod[][] {
  const groups = GROUPS.map(() => [] as Pod[]);
  for (const pod of pods) (groups[GROUPS.indexOf(evictionGroup(pod))] as Pod[]).push(pod);
  return groups;
}

/** One bounded step, and the next one queued after the delay the step asks for when the claim is not done yet. */
export async function runTerminationStep(deps: InstanceDeps, nodeClaim: string): Promise<TerminationStep> {
  const result = await terminateStep(deps, nodeClaim);
  if (!result.done) await queueTermination(deps, nodeClaim, result.requeueAfterSeconds ?? 5);
  return result;
}

/** One bounded step of a claim's termination. A step only moves on a termination that a decision started: every
 * use-case that ends a claim first writes its cause on it (Draining, through startTermination) or fails it, and a
 * Terminate message carries no cause, so one naming a live claim is refused, logged and counted. */
export async function terminateStep(deps: InstanceDeps, nodeClaim: string): Promise<TerminationStep> {
  let claim = await deps.store.get(nodeClaim);
  if (!claim || claim.state === 'Terminated') return { done: true };
  if (claim.state !== 'Draining' && claim.state !== 'Failed') {
    deps.log.warn("Terminate refused: no decision started this claim's termination", {
      nodeClaim,
      state: claim.state,
    });
    deps.metric('TerminationsRefused', 1, 'Count');
    return { done: true, refused: true };
  }
  const node = claim.nodeName
    ? (await deps.kube.listNodes()).find((n) => n.metadata.name === claim?.nodeName)
    : undefined;

  if (claim.state === 'Draining' && node) {
    if (claim.drain?.step === 'cordon' || !claim.drain?.step) {
      await deps.kube.cordon(node.metadata.name);
      await deps.kube.setDisruptedTaint(node.metadata.name, true);
      claim = await deps.store.update(claim, {
        drain: { ...drainOf(claim, deps), step: 'drain', steppedAt: nowIso(deps) },
      });
      await emitEvent(deps, {
        involved: { kind: 'Node', name: node.metadata.name },
        type: 'Normal',
        reason: 'Disrupting',
        message: `Disrupting node: ${claim.disruption?.cause ?? 'Deleted'}${claim.disruption?.detail ? ` (${claim.disruption.detail})` : ''}`,
      });
      await announceDrainDeadline(deps, claim, node.metadata.name);
    }
    const drained = await drainStep(deps, claim, node.metadata.name);
    if (!drained.done) return drained;
  }
  return finish(deps, claim);
}

const nowIso = (deps: InstanceDeps): string => new Date(deps.clock.now()).toISOString();

function drainOf(claim: NodeClaim, deps: InstanceDeps): NonNullable<NodeClaim['drain']> {
  return claim.drain ?? { startedAt: new Date(deps.clock.now()).toISOString() };
}

/** When the drain stops waiting: the earlier of the claim's terminationGracePeriod (stamped at launch; a NodePool
 * change does not reach a running node) and the claim's deadline. */
async function drainDeadline(deps: InstanceDeps, claim: NodeClaim): Promise<number | undefined> {
  const started = Date.parse(drainOf(claim, deps).startedAt);
  const candidates: number[] = [];
  if (claim.drain?.deadline) candidates.push(Date.parse(claim.drain.deadline));
  const pool =
    claim.expireAfter === undefined
      ? (await deps.kube.listNodePools()).find((p) => p.metadata.name === claim.nodePool)
      : undefined;
  const grace = terminationGraceMs(claimTerminationGracePeriod(claim, pool));
  if (grace !== undefined) candidates.push(started + grace);
  const finite = candidates.filter((c) => Number.isFinite(c));
  return finite.length ? Math.min(...finite) : undefined;
}

/** Karpenter's TerminationGracePeriodExpiring, on the Node and the NodeClaim, once as the drain starts: the time
 * every pod still there is deleted, when the drain has one. */
async function announceDrainDeadline(deps: InstanceDeps, claim: NodeClaim, nodeName: string): Promise<void> {
  const deadline = await drainDeadline(deps, claim);
  if (deadline === undefined) return;
  const at = new Date(deadline).toISOString();
  await emitEvent(deps, terminationGracePeriodExpiring({ kind: 'Node', name: nodeName }, at));
  await emitEvent(deps, terminationGracePeriodExpiring({ kind: 'NodeClaim', name: claim.name }, at));
}

async function drainStep(deps: InstanceDeps, claim: NodeClaim, nodeName: string): Promise<TerminationStep> {
  const now = deps.clock.now();
  const waiting = (await deps.kube.listPods({ nodeName })).filter(isDrainable);
  if (waiting.length === 0) return { done: true };
  const deadline = await drainDeadline(deps, claim);
  if (deadline !== undefined && now >= deadline) {
    deps.log.warn('drain deadline reached; terminating with pods still on the node', {
      nodeClaim: claim.name,
      node: nodeName,
      pods: waiting.length,
    });
    deps.metric('DrainDeadlineReached', 1, 'Count');
    return { done: true };
  }
  const group = groupForEviction(waiting).find((g) => g.length > 0) ?? [];
  let evicted = 0;
  let blocked = 0;
  let held = 0;
  for (const pod of group) {
    if (evicted + blocked >= deps.config.maxEvictionsPerStep) break;
    if (pod.metadata.deletionTimestamp) continue; // already on its way out
    if (doNotDisruptActive(pod, now)) {
      held++;
      continue;
    }
    const outcome = await deps.kube.evict(podRef(pod));
    if (outcome === 'blocked') {
      blocked++;
      await emitEvent(deps, failedDraining(nodeName, pod));
      continue;
    }
    evicted++;
    if (outcome === 'evicted') await emitEvent(deps, podEvicted(pod, evictionReason(claim.disruption?.cause)));
  }
  if (evicted > 0) deps.metric('PodsEvicted', evicted, 'Count');
  if (held > 0) {
    await emitEvent(deps, {
      involved: { kind: 'Node', name: nodeName },
      type: 'Warning',
      reason: 'DisruptionBlocked',
      message: `${held} pod(s) have the ${AnnotationDoNotDisrupt} annotation`,
    });
  }
  const previous = claim.drain?.evicted ?? 0;
  try {
    await deps.store.update(claim, {
      drain: { ...drainOf(claim, deps), step: 'drain', evicted: previous + evicted, steppedAt: nowIso(deps) },
    });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
  }
  deps.log.info('drain step', {
    nodeClaim: claim.name,
    node: nodeName,
    waiting: waiting.length,
    evicted,
    blocked,
    held,
  });
  let requeue = blocked > 0 || held > 0 ? deps.config.drainBlockedRequeueSeconds : deps.config.drainRequeueSeconds;
  if (deadline !== undefined) requeue = Math.max(1, Math.min(requeue, Math.ceil((deadline - now) / 1000)));
  return { done: false, requeueAfterSeconds: requeue };
}

/** TerminateInstances, then delete the Node, then mark the claim Terminated; each is idempotent, so a crash
 * between them is finished by the next step. */
async function finish(deps: InstanceDeps, claim: NodeClaim): Promise<TerminationStep> {
  if (claim.instanceId) await deps.cloud.delete(claim.instanceId);
  if (claim.nodeName) await deps.kube.deleteNode(claim.nodeName);
  try {
    await deps.store.transition(claim, 'Terminated', {
      drain: { ...drainOf(claim, deps), step: 'terminated' },
    });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const current = await deps.store.get(claim.name);
    if (current && current.state !== 'Terminated') return { done: false, requeueAfterSeconds: 1 };
  }
  await releaseNodeClaimObject(deps, claim.name);
  const cause = claim.disruption?.cause ?? claim.failure?.reason ?? 'Unknown';
  deps.metric('NodeClaimsTerminated', 1, 'Count', { cause });
  await deps.store.putDecision({
    id: newId(deps),
    cluster: deps.cluster,
    at: new Date(deps.clock.now()).toISOString(),
    kind: 'Terminate',
    nodeClaims: [claim.name],
    summary: `terminated ${claim.name} (${cause}) after evicting ${claim.drain?.evicted ?? 0} pod(s)`,
    detail: {
      cause,
      ...(claim.disruption?.detail ? { reason: claim.disruption.detail } : {}),
      ...(claim.failure ? { failure: claim.failure } : {}),
      instanceId: claim.instanceId,
      node: claim.nodeName,
      drain: claim.drain,
    },
  });
  deps.log.info('terminated', { nodeClaim: claim.name, instanceId: claim.instanceId, node: claim.nodeName });
  return { done: true };
}

/** The claim's NodeClaim object goes with it, its termination finalizer off, so a `kubectl delete nodeclaim` returns
 * as soon as the node is gone rather than at the next sweep's mirror (which would delete it too). Quiet: the object
 * is for people and tools, and a cluster without the CRD has none. */
async function releaseNodeClaimObject(deps: InstanceDeps, name: string): Promise<void> {
  if (!deps.kube.deleteNodeClaimObject) return;
  try {
    await deps.kube.deleteNodeClaimObject(name);
  } catch (err) {
    deps.log.warn('NodeClaim object not deleted', {
      nodeClaim: name,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** A terminationGracePeriod in ms; absent, "Never" or unparsable (reported by validation) is no limit. */
export function terminationGraceMs(value: string | undefined): number | undefined {
  if (!value) return undefined;
  try {
    const ms = parseDuration(value);
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}
