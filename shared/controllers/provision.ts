// The provisioning pass: read everything, solve, write NodeClaims before launching them, launch, and tell people.
// Messages only trigger a pass; its inputs are always re-read, so redelivery and repetition are harmless:
// - pods nominated to a live claim count as placed on it, so a second pass plans nothing new for them;
// - claim names derive from their pods, so two passes planning the same claim collide on the store's conditional
//   create and one of them launches it;
// - after writing, a pass re-reads the live claims and withdraws any of its own that share a pod with a claim it
//   did not see at the start (a concurrent pass); with write-then-read, at least one of two racers sees the other;
// - a Pending claim left behind by a crashed pass is launched again with its uid, which the cloud maps back to the
//   same instance.

import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import type { NodeClaim } from '../api/nodeclaim';
import { podRef } from '../api/pods';
import { isStaticNodePool } from '../api/static-nodepool';
import type { SchedulingResult } from '../scheduling';
import { solve as defaultSolve, loadLpSolver } from '../scheduling';
import { buildClusterView, type ClusterView } from './cluster-nodes';
import type { ControlPlaneDeps } from './deps';
import { launchClaim } from './launch';
import { requestReplan } from './messages';
import { announceNominations, nominateToExisting } from './nominations';
import { withdrawContested, writeClaims } from './provision-claims';
import { announceUnschedulable, recordDecision, reportPass } from './provision-report';
import { emptyProvisionResult, keyOf, type ProvisionResult, tally } from './provision-result';
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

const LAUNCH_CONCURRENCY = 8;

export async function provision(deps: ControlPlaneDeps, options: ProvisionOptions = {}): Promise<ProvisionResult> {
  const started = deps.clock.now();
  const snapshot = await readSnapshot(deps);
  const view = buildClusterView(snapshot, {
    nominationTtlMs: deps.config.nominationTtlMs,
    ...(options.replacing ? { leaving: new Set(options.replacing) } : {}),
  });
  const result = emptyProvisionResult();

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
  own = await withdrawContested(deps, snapshot, own, result.withdrawn);
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

function launchContext(s: ClusterSnapshot, claim: NodeClaim) {
  const nodePool: NodePool | undefined = s.nodePools.find((p) => p.metadata.name === claim.nodePool);
  const nodeClass: EC2NodeClass | undefined = s.nodeClasses.find((c) => c.metadata.name === claim.nodeClass);
  return { nodePool, nodeClass, types: s.instanceTypes.get(claim.nodePool) ?? [] };
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
