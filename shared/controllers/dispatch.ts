// Routes a cluster-queue message to its use-case. The cluster queue's one consumer, the provisioner, wires the
// disruption sweep; the simulator and the test beds route every queue through here too. The termination function
// routes its own queue with termination-queue.ts, which never plans.
import type { ControlMessage, DisruptionDueMessage } from '../messages';
import type { ControlPlaneDeps } from './deps';
import type { HintCoverage } from './hint-coverage';
import { type LifecycleResult, reconcileNodes } from './lifecycle';
import { assertOwnCluster, scheduleDisruptionCheck } from './messages';
import { type DeletedNodeClaimsResult, terminateDeletedNodeClaims } from './nodeclaim-deletion';
import { terminateClaimsOfDeletedNodePools } from './nodepool-deletion';
import { provision } from './provision';
import type { ProvisionResult } from './provision-result';
import { publishStatusQuietly, type StatusResult } from './status';
import { runTerminationStep, type TerminationStep } from './termination';
import { redriveStalledTerminations } from './termination-redrive';

export type DispatchResult =
  | { kind: 'provision'; result: ProvisionResult }
  | { kind: 'lifecycle'; result: LifecycleResult }
  | { kind: 'terminate'; result: TerminationStep }
  | { kind: 'nodeclaim-deleted'; result: DeletedNodeClaimsResult }
  | {
      kind: 'sweep';
      lifecycle: LifecycleResult;
      result: ProvisionResult;
      status?: StatusResult;
      /** Claims whose stalled termination this tick queued again. */
      redriven: string[];
    }
  /** checked: the sweep moved due commands along; ignored: no sweep is wired here, so nothing can act on it. */
  | { kind: 'disruption-due'; action: 'checked' | 'ignored' }
  /** A completed run that read the cluster after SQS accepted this hint already answered it (hint-coverage.ts). */
  | { kind: 'coalesced'; hint: ControlMessage['kind'] };

/** What the dispatcher reports of a disruption sweep (DisruptionSweepResult has these fields). */
export interface SweepOutcome {
  decided: readonly string[];
  started: readonly string[];
  dropped: readonly string[];
  inflight: number;
  /** When the earliest decided command's validation re-check is due (epoch ms); the dispatcher schedules it. */
  nextValidationAt?: number;
  /** Consolidation candidates a planning run's deadline kept from being judged (0 when it finished). */
  candidatesDeferred?: number;
}

/** How the sweep is asked to run: a DisruptionDue message only moves in-flight commands along, without planning. */
export interface SweepRun {
  progressOnly: boolean;
  /** When (on deps.clock) a planning run must stop planning; the provisioner derives it from the Lambda's remaining
   * time (docs/disruption.md, A deadline for the sweep). */
  deadline?: number;
}

export interface DispatchOptions {
  /** The consolidation sweep (the disruption use-case) runs here when wired; provisioning follows it. Its outcome
   * is logged and emitted as the DisruptionDecided/Started/Dropped metrics, and its `nextValidationAt` is scheduled
   * as a DisruptionDue message. Undefined means the sweep keeps its own account (the scenario runner's driver
   * schedules its own re-checks), so nothing is reported here. Wire it only in the cluster queue's one consumer. */
  sweep?: (deps: ControlPlaneDeps, run: SweepRun) => Promise<SweepOutcome | undefined>;
  /** When (on deps.clock) planning must stop so the invocation can still launch and record what it planned; the
   * provisioner derives it from the Lambda's remaining time (docs/performance.md, A deadline that holds). */
  solveDeadline?: number;
  /** When (on deps.clock) a Sweep tick's disruption planning must stop, leaving time for its writes and the
   * provisioning pass after it (docs/disruption.md, A deadline for the sweep). */
  sweepDeadline?: number;
  /** When SQS accepted the message (its SentTimestamp, epoch ms): it bounds the sender's `at` (sentTime). */
  sentAt?: number;
  /** When SQS first handed the message to a consumer (its ApproximateFirstReceiveTimestamp, epoch ms). */
  receivedAt?: number;
  /** What this consumer's runs have answered: a hint already answered is coalesced into that run (hint-coverage.ts).
   * Needs `sentAt`, and `receivedAt` to record a run; without them every message runs. */
  coverage?: HintCoverage;
}

const PLANNING: SweepRun = { progressOnly: false };
const PROGRESS_ONLY: SweepRun = { progressOnly: true };

export async function handleControlMessage(
  deps: ControlPlaneDeps,
  message: ControlMessage,
  options: DispatchOptions = {},
): Promise<DispatchResult> {
  assertOwnCluster(deps, message);
  const { coverage, sentAt, receivedAt } = options;
  if (coverage && sentAt !== undefined && coverage.covers(message.kind, sentAt)) {
    deps.metric('HintsCoalesced', 1, 'Count');
    deps.log.debug('hint already answered by a completed run; coalesced', { kind: message.kind, sentAt });
    return { kind: 'coalesced', hint: message.kind };
  }
  const result = await route(deps, message, options);
  if (coverage && receivedAt !== undefined && !mustRetry(result)) coverage.completed(message.kind, receivedAt);
  return result;
}

/** A pass whose launch hit a retryable error answered nothing: its message is redelivered and must run again. */
const mustRetry = (r: DispatchResult): boolean => (r.kind === 'provision' || r.kind === 'sweep') && r.result.retry;

async function route(
  deps: ControlPlaneDeps,
  message: ControlMessage,
  options: DispatchOptions,
): Promise<DispatchResult> {
  switch (message.kind) {
    case 'PodsPending':
    case 'NodePoolChanged':
      // A deleted NodePool's nodes go now rather than at the next GC tick (docs/disruption.md, Deleting a NodePool).
      if (message.kind === 'NodePoolChanged') await terminateClaimsOfDeletedNodePools(deps);
      return {
        kind: 'provision',
        result: await provision(deps, {
          trigger: message.kind,
          triggeredAt: sentTime(message.at, options.sentAt),
          ...deadlineOf(options),
        }),
      };
    case 'NodeChanged': {
      const result = await reconcileNodes(deps);
      // A node that just initialized may be the replacement a disruption command waits for: move the command on now
      // rather than at the next Sweep tick, up to a minute later, with the old node tainted and idle meanwhile.
      if (options.sweep && result.initialized.length > 0) {
        await afterSweep(deps, await options.sweep(deps, PROGRESS_ONLY), PROGRESS_ONLY);
      }
      return { kind: 'lifecycle', result };
    }
    case 'NodeClaimDeleted':
      // `kubectl delete nodeclaim`, seen by the forwarder's watch: the drain starts now rather than at the next
      // Sweep tick's mirror, through the same use-case (docs/kubernetes.md, NodeClaim objects).
      return { kind: 'nodeclaim-deleted', result: await terminateDeletedNodeClaims(deps) };
    case 'Terminate':
      return { kind: 'terminate', result: await runTerminationStep(deps, message.nodeClaim) };
    case 'Sweep': {
      // The sweep tick also drives the lifecycle timers (launch and registration timeouts) and the status report.
      const lifecycle = await reconcileNodes(deps);
      // After the lifecycle pass, which has just reached the API server: a drain stranded by an outage resumes on the
      // first tick that gets through (docs/disruption.md, Drains that outlive an outage).
      const { redriven } = await redriveStalledTerminations(deps);
      if (options.sweep) {
        const run: SweepRun =
          options.sweepDeadline === undefined ? PLANNING : { ...PLANNING, deadline: options.sweepDeadline };
        await afterSweep(deps, await options.sweep(deps, run), run);
      }
      const result = await provision(deps, { trigger: 'Sweep', ...deadlineOf(options) });
      const status = await publishStatusQuietly(deps);
      return { kind: 'sweep', lifecycle, result, redriven, ...(status ? { status } : {}) };
    }
    case 'DisruptionDue':
      return { kind: 'disruption-due', action: await disruptionDue(deps, message, options) };
  }
}

/** How far before SQS's SentTimestamp a sender's `at` may lie: the forwarder stamps a batch as it sends it, so only
 * clock skew and send retries separate the two. */
export const SENDER_CLOCK_SKEW_MS = 5_000;

/**
 * The sender's `at` as far as SQS vouches for it: anyone allowed to send on the queue may write any time there, and
 * a metric must not take 1970 or 9999 from them (LaunchLatency). Held within SENDER_CLOCK_SKEW_MS before SentTimestamp
 * and never after it; unchanged where no SentTimestamp is known (harnesses without SQS).
 */
function sentTime(at: string, sentAt: number | undefined): string {
  if (sentAt === undefined) return at;
  const claimed = Date.parse(at);
  const bounded = Number.isFinite(claimed)
    ? Math.min(sentAt, Math.max(sentAt - SENDER_CLOCK_SKEW_MS, claimed))
    : sentAt;
  return new Date(bounded).toISOString();
}

const deadlineOf = (o: DispatchOptions) => (o.solveDeadline === undefined ? {} : { solveDeadline: o.solveDeadline });

/** A validation re-check came due: it runs where the sweep is wired. The termination function relays it here from
 * its delayed queue (termination-queue.ts); anywhere else, its command is re-checked by the next Sweep tick. */
async function disruptionDue(
  deps: ControlPlaneDeps,
  message: DisruptionDueMessage,
  options: DispatchOptions,
): Promise<'checked' | 'ignored'> {
  if (!options.sweep) {
    deps.log.warn('DisruptionDue reached a consumer without the disruption sweep; ignored', { due: message.at });
    return 'ignored';
  }
  await afterSweep(deps, await options.sweep(deps, PROGRESS_ONLY), PROGRESS_ONLY);
  return 'checked';
}

/** Reports the sweep and schedules its next validation re-check. A re-check already due that this run did not move
 * along (a conflicting write, say) is left to the next Sweep tick rather than re-sent at once. */
async function afterSweep(deps: ControlPlaneDeps, outcome: SweepOutcome | undefined, run: SweepRun): Promise<void> {
  if (!outcome) return;
  reportSweep(deps, outcome, run);
  const due = outcome.nextValidationAt;
  if (due === undefined || due <= deps.clock.now()) return;
  const delaySeconds = await scheduleDisruptionCheck(deps, due);
  deps.log.debug('disruption re-check scheduled', { due: new Date(due).toISOString(), delaySeconds });
}

/** A planning run always reports, so the metrics show the sweep running; a progress-only run (a due re-check, a node
 * that initialized) reports only when it moved a command, or the zeros would drown the real data points. */
function reportSweep(deps: ControlPlaneDeps, outcome: SweepOutcome, run: SweepRun): void {
  const counts = {
    decided: outcome.decided.length,
    started: outcome.started.length,
    dropped: outcome.dropped.length,
    inflight: outcome.inflight,
  };
  if (run.progressOnly && counts.decided + counts.started + counts.dropped === 0) {
    deps.log.debug('disruption sweep (progress only): nothing moved', counts);
    return;
  }
  deps.log.info('disruption sweep', { ...counts, progressOnly: run.progressOnly });
  if (!run.progressOnly && outcome.candidatesDeferred !== undefined) {
    // Every planning run reports, 0 included, so the persistence alarm's minimum sees data (as PodsDeferred).
    deps.metric('SweepCandidatesDeferred', outcome.candidatesDeferred, 'Count');
    if (outcome.candidatesDeferred > 0) deps.metric('SweepDeadlineReached', 1, 'Count');
  }
  deps.metric('DisruptionDecided', counts.decided, 'Count');
  deps.metric('DisruptionStarted', counts.started, 'Count');
  deps.metric('DisruptionDropped', counts.dropped, 'Count');
}
