// Terminations that stopped moving, queued again (docs/disruption.md, Drains that outlive an outage). A termination
// is a chain of Terminate messages, each step queueing the next. A step that keeps failing, say for an API server
// unreachable longer than the termination queue's maxReceiveCount × visibility timeout (25 minutes), ends in the
// dead-letter queue, and with it the chain: the claim would stay Draining for ever, its node cordoned, its instance
// running and its NodePool's disruption budget spent. The Sweep tick runs this reconciler, so such a claim gets a new
// first step once the tick itself gets through.
// - Idempotent: a claim is redriven only when its last sign of progress is older than the stall window, which is
//   longer than a failing chain can live, so a chain still being retried is never doubled; and the redrive is written
//   on the claim conditionally on its version before the step is queued, so two ticks redrive a claim once.
// - Backoff: each redrive of the same claim doubles the window (up to REDRIVE_BACKOFF_CAP_MS), so a termination that
//   fails for a lasting reason is retried a few times a day, not on every tick.
import type { NodeClaim, NodeClaimState } from '../api/nodeclaim';
import { ConflictError } from '../errors';
import type { InstanceDeps } from './deps';
import { queueTermination } from './messages';

/** The longest wait between two redrives of one claim. */
export const REDRIVE_BACKOFF_CAP_MS = 4 * 60 * 60_000;

const ENDING: NodeClaimState[] = ['Draining', 'Failed'];

export interface RedriveResult {
  /** Claims whose termination was queued again. */
  redriven: string[];
}

/** How long a claim that was redriven `count` times may go without progress before the next redrive. */
export function redriveWindowMs(stallMs: number, count: number): number {
  return Math.min(stallMs * 2 ** count, Math.max(stallMs, REDRIVE_BACKOFF_CAP_MS));
}

/** The last time anything moved the claim's termination on: a drain step, the drain's start, the state's entry, or
 * the last redrive. */
export function lastProgressAt(claim: NodeClaim): number {
  const times = [claim.drain?.steppedAt, claim.drain?.startedAt, claim.stateTimes[claim.state], claim.redrive?.at]
    .map((t) => (t ? Date.parse(t) : Number.NaN))
    .filter((t) => Number.isFinite(t));
  return times.length > 0 ? Math.max(...times) : Date.parse(claim.createdAt);
}

/** A Failed claim is termination's only while it has something left to end; a launch that failed before any
 * instance existed stays Failed as the failure's record (nodeclaim-mirror.ts). */
const hasSomethingToEnd = (c: NodeClaim): boolean => c.state === 'Draining' || !!c.instanceId || !!c.nodeName;

export async function redriveStalledTerminations(deps: InstanceDeps): Promise<RedriveResult> {
  const now = deps.clock.now();
  const result: RedriveResult = { redriven: [] };
  for (const claim of await deps.store.list({ states: ENDING })) {
    if (!hasSomethingToEnd(claim)) continue;
    const count = claim.redrive?.count ?? 0;
    const idle = now - lastProgressAt(claim);
    if (idle < redriveWindowMs(deps.config.terminationStallMs, count)) continue;
    try {
      await deps.store.update(claim, { redrive: { count: count + 1, at: new Date(now).toISOString() } });
    } catch (err) {
      if (err instanceof ConflictError) continue; // another tick or a step moved it meanwhile
      throw err;
    }
    await queueTermination(deps, claim.name);
    deps.log.warn('termination stalled; its next step queued again', {
      nodeClaim: claim.name,
      state: claim.state,
      step: claim.drain?.step,
      idleSeconds: Math.round(idle / 1000),
      redrives: count + 1,
    });
    result.redriven.push(claim.name);
  }
  deps.metric('TerminationsRedriven', result.redriven.length, 'Count');
  return result;
}
