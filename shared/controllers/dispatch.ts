// Routes a cluster-queue message to its use-case. Every SQS consumer of the cluster queue uses this, so a message
// that lands on any of them is handled the same way.
import type { ControlMessage } from '../messages';
import type { ControlPlaneDeps } from './deps';
import { type LifecycleResult, reconcileNodes } from './lifecycle';
import { queueTermination } from './messages';
import { type ProvisionResult, provision } from './provision';
import { type TerminationStep, terminateStep } from './termination';

export type DispatchResult =
  | { kind: 'provision'; result: ProvisionResult }
  | { kind: 'lifecycle'; result: LifecycleResult }
  | { kind: 'terminate'; result: TerminationStep }
  | { kind: 'sweep'; lifecycle: LifecycleResult; result: ProvisionResult };

/** What the dispatcher reports of a disruption sweep (DisruptionSweepResult has these fields). */
export interface SweepOutcome {
  decided: readonly string[];
  started: readonly string[];
  dropped: readonly string[];
  inflight: number;
}

export interface DispatchOptions {
  /** The consolidation sweep (the disruption use-case) runs here when wired; provisioning follows it. Its outcome,
   * when it returns one, is logged and emitted as the DisruptionDecided/Started/Dropped metrics. */
  sweep?: (deps: ControlPlaneDeps) => Promise<unknown>;
}

export async function handleControlMessage(
  deps: ControlPlaneDeps,
  message: ControlMessage,
  options: DispatchOptions = {},
): Promise<DispatchResult> {
  if (message.cluster !== deps.cluster) {
    throw new Error(`message for cluster ${message.cluster} reached the handler of cluster ${deps.cluster}`);
  }
  switch (message.kind) {
    case 'PodsPending':
    case 'NodePoolChanged':
      return { kind: 'provision', result: await provision(deps, { trigger: message.kind, triggeredAt: message.at }) };
    case 'NodeChanged':
      return { kind: 'lifecycle', result: await reconcileNodes(deps) };
    case 'Terminate': {
      const result = await terminateStep(deps, message.nodeClaim);
      if (!result.done) await queueTermination(deps, message.nodeClaim, result.requeueAfterSeconds ?? 5);
      return { kind: 'terminate', result };
    }
    case 'Sweep': {
      // The sweep tick also drives the lifecycle timers (launch and registration timeouts).
      const lifecycle = await reconcileNodes(deps);
      if (options.sweep) reportSweep(deps, await options.sweep(deps));
      return { kind: 'sweep', lifecycle, result: await provision(deps, { trigger: 'Sweep' }) };
    }
  }
}

function isSweepOutcome(value: unknown): value is SweepOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    Array.isArray(v.decided) && Array.isArray(v.started) && Array.isArray(v.dropped) && typeof v.inflight === 'number'
  );
}

function reportSweep(deps: ControlPlaneDeps, outcome: unknown): void {
  if (!isSweepOutcome(outcome)) return;
  const counts = {
    decided: outcome.decided.length,
    started: outcome.started.length,
    dropped: outcome.dropped.length,
    inflight: outcome.inflight,
  };
  deps.log.info('disruption sweep', counts);
  // Literal names: engine code cannot import functions/middleware; MetricNames there lists the same strings.
  deps.metric('DisruptionDecided', counts.decided, 'Count');
  deps.metric('DisruptionStarted', counts.started, 'Count');
  deps.metric('DisruptionDropped', counts.dropped, 'Count');
}
