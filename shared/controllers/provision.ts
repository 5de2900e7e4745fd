// The provisioning pass: read everything, solve, write NodeClaims before launching them, launch, and tell people.
// Messages only trigger a pass; its inputs are always re-read, so redelivery and repetition are harmless:
// - pods nominated to a live claim count as placed on it, so a second pass plans nothing new for them;
// - claim names derive from their pods, so two passes planning the same claim collide on the store's conditional
//   create and one of them launches it;
// - after writing, a pass re-reads the live claims and withdraws any of its own that share a pod with a claim it
//   did not see at the start (a concurrent pass); with write-then-read, at least one of two racers sees the other;
// - a Pending claim left behind by a crashed pass is launched again with its uid, which the cloud maps back to the
//   same instance.

import { claimTemplateFields } from '../api/claim-template';
import { claimHashes } from '../api/hash';
import { claimName, newId, newUid } from '../api/ids';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { Pod, PodRef } from '../api/kube';
import { LIVE_STATES, type NodeClaim } from '../api/nodeclaim';
import { podRef, refKey } from '../api/pods';
import { isStaticNodePool } from '../api/static-nodepool';
import { ConflictError } from '../errors';
import type { ClusterNode, PlannedNodeClaim, SchedulingResult } from '../scheduling';
import { solve as defaultSolve, loadLpSolver } from '../scheduling';
import { buildClusterView, type ClusterView } from './cluster-nodes';
import type { ControlPlaneDeps } from './deps';
import { emitEvent } from './events';
import { type LaunchOutcome, launchClaim } from './launch';
import { requestReplan } from './messages';
import { type ClusterSnapshot, readSnapshot } from './snapshot';
import { writeStaticClaims } from './static-pools';
import { scaleDownStatic } from './static-scale-down';

export interface ProvisionOptions {
  /** Why this pass runs, for logs and the decision record ("PodsPending", "SpotInterruption i-0abc", ...). */
  trigger?: string;
  /** ISO time of the event behind this pass (the message's `at`), for the launch-latency metric. */
  triggeredAt?: string;
  /** Claims (by claim or node name) about to be disrupted: plan and launch capacity for their pods now, before they
   * drain. The replacements hold those pods, so draining later plans nothing twice. */
  replacing?: readonly string[];
  /** When (on deps.clock) the pass must have finished planning so it can still write and launch what it planned:
   * the solve's budget ends here (docs/performance.md, A deadline that holds). */
  solveDeadline?: number;
}

export interface ProvisionResult {
  /** Claims this pass wrote. */
  created: string[];
  /** Claims launched by this pass, including Pending claims left by a crashed pass. */
  launched: string[];
  relaunched: string[];
  /** Own claims withdrawn because a concurrent pass planned the same pods. */
  withdrawn: string[];
  /** Claims deleted after insufficient capacity or a not-ready EC2NodeClass; their pods re-plan. */
  dropped: string[];
  failed: string[];
  /** Pods newly nominated to existing nodes or in-flight claims. */
  nominated: number;
  unschedulable: { pod: string; reason: string }[];
  /** A launch hit a retryable error: the caller should let the message be redelivered. */
  retry: boolean;
  /** Pods the solve had no time for; a continuation message asks for the pass that plans them. */
  deferred: string[];
  decision?: string;
  /** Static NodePool claims terminated because the pool has more than its replicas. */
  scaledDown?: string[];
}

const MAX_PODS_IN_DECISION = 200;
/** How many names a planned claim may try: its pods' name, then salted ones when that name is taken. */
export const CLAIM_NAME_SALTS = 5;
const LAUNCH_CONCURRENCY = 8;

export async function provision(deps: ControlPlaneDeps, options: ProvisionOptions = {}): Promise<ProvisionResult> {
  const started = deps.clock.now();
  const snapshot = await readSnapshot(deps);
  const view = buildClusterView(snapshot, {
    nominationTtlMs: deps.config.nominationTtlMs,
    ...(options.replacing ? { leaving: new Set(options.replacing) } : {}),
  });
  const result: ProvisionResult = {
    created: [],
    launched: [],
    relaunched: [],
    withdrawn: [],
    dropped: [],
    failed: [],
    nominated: 0,
    unschedulable: [],
    retry: false,
    deferred: [],
  };

  const pods = [
    ...snapshot.pending.filter((p) => !p.metadata.deletionTimestamp && !view.held.has(keyOf(p))),
    ...view.displaced,
  ];
  const stale = snapshot.claims.filter(
    (c) => c.state === 'Pending' && snapshot.now - Date.parse(c.createdAt) >= deps.config.pendingRelaunchAfterMs,
  );

  let solved: SchedulingResult | undefined;
  let own: NodeClaim[] = [];
  if (pods.length > 0) {
    solved = await solvePods(deps, snapshot, view, pods, options);
    own = await applyPlan(deps, snapshot, view, pods.length, solved, result, options.trigger);
  }

  const statics = await writeStaticClaims(deps, snapshot);
  result.created.push(...statics.written.map((c) => c.name));
  result.withdrawn.push(...statics.withdrawn);
  own = [...own, ...statics.written];
  result.scaledDown = await scaleDownStatic(deps, snapshot);
  const launched = await launchAll(deps, snapshot, own, stale, result, options.triggeredAt);
  if (solved) await announceUnschedulable(deps, snapshot, solved);
  reportPass(deps, snapshot, result, solved, launched, {
    trigger: options.trigger,
    pods: pods.length,
    started,
  });
  return result;
}

/** The solve over the pods to place, on the NodePools that may get nodes for pods. */
async function solvePods(
  deps: ControlPlaneDeps,
  snapshot: ClusterSnapshot,
  view: ClusterView,
  pods: Pod[],
  options: ProvisionOptions,
): Promise<SchedulingResult> {
  // A static NodePool never gets nodes for pods: only its replicas decide its size. A NodePool being deleted gets
  // none either, as in Karpenter: its nodes are going (nodepool-deletion.ts).
  const nodePools = snapshot.nodePools.filter(
    (p) => snapshot.instanceTypes.has(p.metadata.name) && !isStaticNodePool(p) && !p.metadata.deletionTimestamp,
  );
  await loadLpSolver();
  return (deps.solve ?? defaultSolve)({
    pods,
    nodePools,
    nodeClasses: snapshot.nodeClasses,
    instanceTypes: snapshot.instanceTypes,
    existingNodes: view.existing,
    daemonSets: snapshot.daemonSets,
    pvcs: snapshot.pvcs,
    pvs: snapshot.pvs,
    storageClasses: snapshot.storageClasses,
    namespaces: snapshot.namespaces,
    options: {
      timeoutMs: solveBudget(deps, options),
      now: () => deps.clock.now(),
      // Karpenter's operator settings, from clusters.yaml `settings` (docs/disruption.md, Settings).
      minValuesPolicy: deps.config.disruption.minValuesPolicy,
      preferencePolicy: deps.config.disruption.preferencePolicy,
    },
  });
}

/** Acts on the plan before any launch: deferred pods, nominations, the claims written (and withdrawn when contested),
 * the decision record. Returns the claims this pass wrote and kept. */
async function applyPlan(
  deps: ControlPlaneDeps,
  snapshot: ClusterSnapshot,
  view: ClusterView,
  podCount: number,
  plan: SchedulingResult,
  result: ProvisionResult,
  trigger: string | undefined,
): Promise<NodeClaim[]> {
  deps.metric('SolveDuration', plan.stats.durationMs, 'Milliseconds');
  await continueDeferred(deps, plan, result);
  result.nominated = await nominateToExisting(deps, view, plan);
  let own = await writeClaims(deps, snapshot, plan.nodeClaims);
  result.created = own.map((c) => c.name);
  result.unschedulable = plan.unschedulable.map((u) => ({ pod: keyOf(u.pod), reason: u.reason }));
  own = await withdrawContested(deps, snapshot, own, result);
  result.decision = await recordDecision(deps, snapshot, podCount, plan, own, trigger);
  return own;
}

/** Launches the pass's own claims and the stale Pending ones, tallying each outcome; returns the claims launched. */
async function launchAll(
  deps: ControlPlaneDeps,
  snapshot: ClusterSnapshot,
  own: readonly NodeClaim[],
  stale: readonly NodeClaim[],
  result: ProvisionResult,
  triggeredAt: string | undefined,
): Promise<NodeClaim[]> {
  const staleNames = new Set(stale.map((c) => c.name));
  const outcomes = await mapLimit([...own, ...stale], LAUNCH_CONCURRENCY, async (claim) => ({
    claim,
    outcome: await launchClaim(deps, claim, {
      ...launchContext(snapshot, claim),
      ...(triggeredAt && !staleNames.has(claim.name) ? { triggeredAt: Date.parse(triggeredAt) } : {}),
    }),
  }));
  for (const { claim, outcome } of outcomes) {
    tally(result, claim, outcome, staleNames.has(claim.name));
    if (outcome.kind === 'launched') await announceNominations(deps, outcome.claim, outcome.claim.nominatedPods);
  }
  return outcomes.flatMap((o) => (o.outcome.kind === 'launched' ? [o.outcome.claim] : []));
}

/** A FailedScheduling event per pod the plan could not place. */
async function announceUnschedulable(
  deps: ControlPlaneDeps,
  snapshot: ClusterSnapshot,
  solved: SchedulingResult,
): Promise<void> {
  // NodePools left out of the solve are named too, or their users would never learn why they were not tried.
  const skipped = snapshot.problems.map((p) => `; NodePool ${p.nodePool} skipped: ${p.reason}`).join('');
  for (const u of solved.unschedulable) {
    await emitEvent(deps, {
      involved: { kind: 'Pod', name: u.pod.metadata.name, namespace: u.pod.metadata.namespace },
      type: 'Warning',
      reason: 'FailedScheduling',
      message: `Failed to schedule pod, ${u.reason}${skipped}`,
    });
  }
}

/** The pass's log lines and metrics. */
function reportPass(
  deps: ControlPlaneDeps,
  snapshot: ClusterSnapshot,
  result: ProvisionResult,
  solved: SchedulingResult | undefined,
  launched: readonly NodeClaim[],
  pass: { trigger: string | undefined; pods: number; started: number },
): void {
  if (result.deferred.length > 0 && result.launched.length === 0 && result.nominated === 0) {
    // Progress is the point of deferring: a pass that deferred pods and launched nothing says why.
    deps.log.warn('deferred pods but launched nothing', {
      deferred: result.deferred.length,
      created: result.created.length,
      withdrawn: result.withdrawn.length,
      dropped: result.dropped.length,
      failed: result.failed.length,
      unschedulable: result.unschedulable.length,
      // The solver's own account, such as why no pod could be placed before its deadline.
      warnings: solved?.warnings ?? [],
    });
  }
  reportFleet(deps, [...snapshot.claims, ...launched]);
  deps.metric('PendingPods', snapshot.pending.length, 'Count');
  deps.metric('UnschedulablePods', result.unschedulable.length, 'Count');
  deps.metric('ProvisionDuration', deps.clock.now() - pass.started, 'Milliseconds');
  deps.log.info('provisioning pass', {
    trigger: pass.trigger,
    pods: pass.pods,
    created: result.created.length,
    launched: result.launched.length,
    relaunched: result.relaunched.length,
    withdrawn: result.withdrawn.length,
    dropped: result.dropped.length,
    failed: result.failed.length,
    nominated: result.nominated,
    unschedulable: result.unschedulable.length,
    deferred: result.deferred.length,
  });
}

const keyOf = (p: Pod): string => `${p.metadata.namespace}/${p.metadata.name}`;

/** The solve's budget: the configured cap, cut to what is left before the pass's own deadline. Never negative; a
 * zero budget still places the first pod (the solver always tries one), so every pass makes progress. */
function solveBudget(deps: ControlPlaneDeps, options: ProvisionOptions): number {
  const cap = deps.config.solveTimeoutMs;
  if (options.solveDeadline === undefined) return cap;
  return Math.max(0, Math.min(cap, options.solveDeadline - deps.clock.now()));
}

/** Pods the solve ran out of time for are planned by a continuation pass, asked for at once: this pass launches
 * what it planned, so the same message never meets the same wall again, and the continuation finds the pods this
 * pass placed already held by its claims. */
async function continueDeferred(
  deps: ControlPlaneDeps,
  plan: SchedulingResult,
  result: ProvisionResult,
): Promise<void> {
  const deferred = plan.deferred ?? [];
  deps.metric('PodsDeferred', deferred.length, 'Count');
  if (deferred.length === 0) return;
  deps.metric('SolveDeadlineReached', 1, 'Count');
  result.deferred = deferred.map(keyOf);
  const placed = plan.nodeClaims.reduce((n, c) => n + c.pods.length, 0);
  deps.log.warn('solve reached its deadline; launching the partial plan and continuing with the rest', {
    deferred: deferred.length,
    placed,
    durationMs: plan.stats.durationMs,
  });
  await requestReplan(deps, 'solve deadline reached', deferred.map(podRef));
}

function tally(result: ProvisionResult, claim: NodeClaim, outcome: LaunchOutcome, stale: boolean): void {
  switch (outcome.kind) {
    case 'launched':
      result.launched.push(claim.name);
      if (stale) result.relaunched.push(claim.name);
      break;
    case 'insufficient-capacity':
    case 'nodeclass-not-ready':
      result.dropped.push(claim.name);
      break;
    case 'failed':
      result.failed.push(claim.name);
      break;
    case 'retry':
      result.retry = true;
      break;
    case 'superseded':
      break;
  }
}

function launchContext(s: ClusterSnapshot, claim: NodeClaim) {
  const nodePool: NodePool | undefined = s.nodePools.find((p) => p.metadata.name === claim.nodePool);
  const nodeClass: EC2NodeClass | undefined = s.nodeClasses.find((c) => c.metadata.name === claim.nodeClass);
  return { nodePool, nodeClass, types: s.instanceTypes.get(claim.nodePool) ?? [] };
}

/** Writes each planned claim. A name already taken by a live claim with the same pods means another pass planned
 * the same claim from the same state: it owns that launch. Any other holder of the name (a dead claim, or the
 * draining claim whose pods these replace) gets the name salted and tried again. */
async function writeClaims(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  planned: PlannedNodeClaim[],
): Promise<NodeClaim[]> {
  const written: NodeClaim[] = [];
  // Stamped at write time, not snapshot time: a long solve must not make a fresh claim look abandoned to a
  // concurrent pass (which relaunches Pending claims older than pendingRelaunchAfterMs).
  const createdAt = new Date(deps.clock.now()).toISOString();
  const seen = new Set(s.claims.map((c) => c.name));
  // The template hashes depend only on the NodePool and EC2NodeClass: hashed once per pair, not once per claim.
  const hashes = new Map<string, ReturnType<typeof claimHashes>>();
  for (const p of planned) {
    const refs = p.pods.map(podRef);
    const pool = s.nodePools.find((np) => np.metadata.name === p.nodePool);
    const nodeClass = s.nodeClasses.find((c) => c.metadata.name === p.nodeClass);
    const pair = `${p.nodePool}\n${p.nodeClass}`;
    const templateHashes = hashes.get(pair) ?? claimHashes(pool, nodeClass);
    hashes.set(pair, templateHashes);
    for (let salt = 0; salt < CLAIM_NAME_SALTS; salt++) {
      const claim: NodeClaim = {
        name: claimName(p.nodePool, refs, salt),
        uid: newUid(deps),
        cluster: deps.cluster,
        nodePool: p.nodePool,
        nodeClass: p.nodeClass,
        state: 'Pending',
        version: 1,
        requirements: p.requirements,
        instanceTypeOptions: p.instanceTypeOptions.map((t) => t.name),
        labels: p.labels,
        taints: p.taints,
        startupTaints: p.startupTaints,
        requests: p.requests,
        nominatedPods: refs,
        createdAt,
        stateTimes: { Pending: createdAt },
        ...templateHashes,
        ...claimTemplateFields(pool, p.minValuesRelaxed),
      };
      try {
        written.push(await deps.store.create(claim));
        break;
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        const existing = await deps.store.get(claim.name);
        // Written since this pass read the store, for exactly these pods: a concurrent pass's identical plan.
        if (existing && !seen.has(existing.name) && LIVE_STATES.includes(existing.state) && samePods(existing, refs)) {
          deps.log.info('claim already written by another pass', { nodeClaim: claim.name });
          break;
        }
        // Otherwise the name belongs to a claim this pass already knew (the one whose pods these replace) or to a
        // dead one: salt it.
      }
    }
  }
  return written;
}

function samePods(claim: NodeClaim, refs: PodRef[]): boolean {
  const a = claim.nominatedPods.map(refKey).sort().join(',');
  return a === refs.map(refKey).sort().join(',');
}

/** Withdraws own claims that share a pod with a live claim this pass did not see when it started. */
async function withdrawContested(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  own: NodeClaim[],
  result: ProvisionResult,
): Promise<NodeClaim[]> {
  if (own.length === 0) return own;
  const seen = new Set(s.claims.map((c) => c.name));
  const mine = new Set(own.map((c) => c.name));
  const rivals = (await deps.store.list({ states: LIVE_STATES })).filter((c) => !seen.has(c.name) && !mine.has(c.name));
  if (rivals.length === 0) return own;
  const contested = new Set(rivals.flatMap((c) => c.nominatedPods.map(refKey)));
  const keep: NodeClaim[] = [];
  const released: PodRef[] = [];
  for (const claim of own) {
    if (!claim.nominatedPods.some((r) => contested.has(refKey(r)))) {
      keep.push(claim);
      continue;
    }
    try {
      await deps.store.delete(claim);
      result.withdrawn.push(claim.name);
      released.push(...claim.nominatedPods);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
  if (released.length > 0) {
    deps.log.warn('concurrent provisioning detected; withdrew contested claims', { withdrawn: result.withdrawn });
    await requestReplan(deps, 'concurrent provisioning pass', released);
  }
  return keep;
}

/** Pods the solver placed on existing nodes or in-flight claims are nominated there: recorded on the claim so the
 * next pass counts them, and announced with a Nominated event. */
async function nominateToExisting(
  deps: ControlPlaneDeps,
  view: ClusterView,
  solved: SchedulingResult,
): Promise<number> {
  const before = new Map<string, Set<string>>(
    view.existing.map((n: ClusterNode) => [n.name, new Set(n.pods.map(keyOf))]),
  );
  let count = 0;
  for (const placement of solved.existingNodes) {
    const known = before.get(placement.name) ?? new Set<string>();
    const added = placement.pods.filter((p) => !known.has(keyOf(p)));
    if (added.length === 0) continue;
    count += added.length;
    // Recorded on the claim so the next pass counts the pod there and the lifecycle binds it (kube-scheduler may
    // bind it first on a running node; that 409 is fine). Nodes without a claim only get the event.
    const claim = view.claimOf.get(placement.name);
    if (claim) {
      const existingRefs = claim.nominatedPods.filter((r) => view.held.get(refKey(r))?.name === claim.name);
      try {
        // lastNominatedAt: the disruption sweep spares a node for 20 s after pods are nominated to it.
        await deps.store.update(claim, {
          nominatedPods: [...existingRefs, ...added.map(podRef)],
          lastNominatedAt: new Date(deps.clock.now()).toISOString(),
        });
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        // The claim moved on; the next pass will place these pods again.
        continue;
      }
    }
    for (const pod of added) {
      await emitEvent(deps, {
        involved: { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace },
        type: 'Normal',
        reason: 'Nominated',
        message: claim
          ? `Pod should schedule on: nodeclaim/${claim.name}`
          : `Pod should schedule on: node/${placement.name}`,
      });
    }
  }
  return count;
}

async function announceNominations(deps: ControlPlaneDeps, claim: NodeClaim, pods: PodRef[]): Promise<void> {
  for (const ref of pods) {
    await emitEvent(deps, {
      involved: { kind: 'Pod', name: ref.name, namespace: ref.namespace, ...(ref.uid ? { uid: ref.uid } : {}) },
      type: 'Normal',
      reason: 'Nominated',
      message: `Pod should schedule on: nodeclaim/${claim.name}`,
    });
  }
}

async function recordDecision(
  deps: ControlPlaneDeps,
  s: ClusterSnapshot,
  podCount: number,
  solved: SchedulingResult,
  own: NodeClaim[],
  trigger: string | undefined,
): Promise<string | undefined> {
  if (own.length === 0 && solved.unschedulable.length === 0) return undefined;
  const id = newId(deps);
  const planned = new Map(solved.nodeClaims.map((p) => [p.pods.map(keyOf).sort().join(','), p]));
  const claims = own.map((c) => {
    const p = planned.get(c.nominatedPods.map(refKey).sort().join(','));
    return {
      name: c.name,
      nodePool: c.nodePool,
      pods: c.nominatedPods.slice(0, MAX_PODS_IN_DECISION).map(refKey),
      podCount: c.nominatedPods.length,
      requests: c.requests,
      instanceTypeOptions: c.instanceTypeOptions,
      cheapest: p?.cheapest,
      // What the chosen type beat, each with the NodeOverlay that priced it (karpless explain shows both).
      ...(p?.alternatives?.length ? { alternatives: p.alternatives } : {}),
    };
  });
  const costPerHour = claims.reduce((sum, c) => sum + (c.cheapest?.price ?? 0), 0);
  await deps.store.putDecision({
    id,
    cluster: deps.cluster,
    at: new Date(s.now).toISOString(),
    kind: 'Provision',
    nodeClaims: own.map((c) => c.name),
    summary:
      `${podCount} pod(s) to place: ${own.length} new NodeClaim(s) at $${costPerHour.toFixed(4)}/h, ` +
      `${solved.unschedulable.length} unschedulable`,
    detail: {
      trigger: trigger ?? 'PodsPending',
      claims,
      unschedulable: solved.unschedulable
        .slice(0, MAX_PODS_IN_DECISION)
        .map((u) => ({ pod: keyOf(u.pod), reason: u.reason })),
      skippedNodePools: s.problems,
      unavailableOfferings: s.unavailable.length,
      warnings: solved.warnings,
      stats: solved.stats,
    },
  });
  return id;
}

/** Gauges for the dashboard: live nodes per NodePool and what they cost per hour (later copies of a claim win). */
function reportFleet(deps: ControlPlaneDeps, claims: NodeClaim[]): void {
  const latest = new Map(claims.map((c) => [c.name, c]));
  const perPool = new Map<string, number>();
  let cost = 0;
  for (const c of latest.values()) {
    if (c.state === 'Pending') continue;
    perPool.set(c.nodePool, (perPool.get(c.nodePool) ?? 0) + 1);
    cost += c.pricePerHour ?? 0;
  }
  for (const [nodePool, count] of perPool) deps.metric('Nodes', count, 'Count', { nodePool });
  deps.metric('CostPerHour', Math.round(cost * 10_000) / 10_000, 'None');
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
