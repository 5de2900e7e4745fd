// The disruption use-case: one sweep decides (planDisruption), and in-flight commands move on across sweeps:
// Validating → (15 s after the decision) re-check → disrupted taint + replacements (launchClaim) →
// Launching until the replacements are Initialized → startTermination (the claim turns Draining; the drain runs as
// queued terminateStep calls). Forceful (expiration) commands act at once, without waiting. A planning sweep first
// repairs unhealthy nodes (shared/controllers/repair.ts).
//
// Resumable: nothing lives in memory between sweeps. A command's phase is written on each candidate claim
// (`disruption.phase`, `commandId`, `validateAfter`/`deadline`, and the JSON-encoded command), every write
// conditional on the claim's version, so a sweep in a later Lambda invocation picks it up. In Lambda the sweep runs
// once a minute; the re-check is not left to the next tick: the dispatcher schedules a DisruptionDue message for
// `nextValidationAt`, which runs a progress-only sweep when it is due (shared/controllers/dispatch.ts).
// The per-NodePool history (for anti-churn back-off) is derived from claims' disruption records
// (disruption-history.ts); executing commands across sweeps is disruption-run.ts.

import type { DisruptionInput, SweepCursor } from '../disruption';
import { loadLpSolver } from '../scheduling';
import { drainExpiringCapacityBlocks } from './capacity-blocks';
import type { ControlPlaneDeps } from './deps';
import { historyFrom } from './disruption-history';
import { readDisruptionInput } from './disruption-input';
import { Run } from './disruption-run';
import { type DisruptionSweepOptions, type DisruptionSweepResult, defaultSweepEngine } from './disruption-sweep-types';
import { emitEvent } from './events';
import { mirrorNodeClaimsQuietly, nodeClaimFacts } from './nodeclaim-mirror';
import { repairUnhealthyNodes } from './repair';

export async function disruptionSweep(
  deps: ControlPlaneDeps,
  opts: DisruptionSweepOptions = {},
): Promise<DisruptionSweepResult> {
  // Planning, validation and replacement all solve packings.
  await loadLpSolver();
  const engine = opts.engine ?? defaultSweepEngine;
  const result: DisruptionSweepResult = { decided: [], started: [], terminating: [], dropped: [], inflight: 0 };
  const run = new Run(deps, engine, opts, result);

  for (const flight of await run.inFlight()) await run.progress(flight);
  if (!opts.progressOnly) {
    // Repairs and ending capacity blocks first: they are forceful, and the plan must not count a node already going.
    result.capacityBlocks = await drainExpiringCapacityBlocks(deps);
    result.repair = await repairUnhealthyNodes(deps);
    if (result.repair.repaired.length > 0 && opts.onStart) {
      const repaired = await Promise.all(result.repair.repaired.map((name) => deps.store.get(name)));
      opts.onStart(
        repaired.flatMap((c) =>
          c?.nodeName
            ? [{ node: c.nodeName, nodeClaim: c.name, nodePool: c.nodePool, reason: 'Unhealthy', forceful: true }]
            : [],
        ),
      );
    }
    const claims = await deps.store.list();
    const history = opts.history ?? historyFrom(claims, deps.clock.now());
    const read = await readDisruptionInput(deps, { ...run.inputExtra(claims), history, trackPodChanges: true });
    const resumeFrom = await deps.store.getSweepCursor?.();
    const input = withBudget(read.input, deps, opts.deadline, resumeFrom);
    const plan = engine.plan(input);
    result.plan = plan;
    result.input = input;
    result.candidatesDeferred = plan.stats.deferred ?? 0;
    // What the plan decided stands, cut short or not: commands are written first, then the cursor.
    for (const command of plan.commands) await run.decide(command, input);
    if (plan.cursor || resumeFrom) await deps.store.putSweepCursor?.(plan.cursor);
    if (plan.cursor) {
      deps.log.warn('disruption sweep reached its deadline; the next sweep resumes at its cursor', {
        deferred: plan.stats.deferred,
        decided: plan.commands.length,
        cursor: plan.cursor.node,
        durationMs: plan.stats.durationMs,
      });
    }
    await run.writeRecords(plan);
    for (const u of plan.unconsolidatable ?? []) {
      // Karpenter's Unconsolidatable event, on the Node and on the NodeClaim (the event recorder deduplicates the
      // repeats of later sweeps, as Karpenter's does).
      for (const kind of ['Node', 'NodeClaim'] as const) {
        const name = kind === 'Node' ? u.name : u.nodeClaim;
        await emitEvent(deps, {
          involved: { kind, name },
          type: 'Normal',
          reason: 'Unconsolidatable',
          message: u.message,
        });
      }
    }
    // The NodeClaim objects in the cluster, with the drift and consolidatability this plan saw.
    await mirrorNodeClaimsQuietly(deps, nodeClaimFacts(input));
  }
  const remaining = await run.inFlight();
  result.inflight = remaining.length;
  for (const f of remaining) {
    const due = f.claims[0]?.disruption?.validateAfter;
    if (f.claims[0]?.disruption?.phase !== 'Validating' || !due) continue;
    const at = Date.parse(due);
    if (result.nextValidationAt === undefined || at < result.nextValidationAt) result.nextValidationAt = at;
  }
  return result;
}

/** The plan's input with what is left of the planning budget (measured on the engine's timer from here) and where
 * the last sweep stopped. Never a negative budget: a sweep out of time still judges one candidate. */
function withBudget(
  input: DisruptionInput,
  deps: ControlPlaneDeps,
  deadline: number | undefined,
  resumeFrom: SweepCursor | undefined,
): DisruptionInput {
  const budget = deadline === undefined ? undefined : Math.max(0, deadline - deps.clock.now());
  return {
    ...input,
    ...(budget !== undefined ? { options: { ...input.options, timeBudgetMs: budget } } : {}),
    ...(resumeFrom ? { resumeFrom } : {}),
  };
}
