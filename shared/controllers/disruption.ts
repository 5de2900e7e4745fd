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
// The per-NodePool history (for anti-churn back-off) is derived from claims' disruption records of the last 24 h,
// one entry per command (the claims keep its id), as recordHistory builds it in process.

import { claimTemplateFields } from '../api/claim-template';
import { claimHashes } from '../api/hash';
import { newUid } from '../api/ids';
import type { DisruptionCause, NodeClaim } from '../api/nodeclaim';
import { podRef } from '../api/pods';
import type {
  CommandReason,
  DisruptionCommand,
  DisruptionHistory,
  DisruptionInput,
  DisruptionOptions,
  DisruptionPlan,
  SweepCursor,
  ValidationResult,
} from '../disruption';
import { disruptionOptionsOf, planDisruption, validate } from '../disruption';
import { ConflictError } from '../errors';
import type { PlannedNodeClaim } from '../scheduling';
import { loadLpSolver } from '../scheduling';
import { type CapacityBlockResult, drainExpiringCapacityBlocks } from './capacity-blocks';
import type { ControlPlaneDeps } from './deps';
import { type PodActivity, readDisruptionInput } from './disruption-input';
import { emitEvent } from './events';
import { launchClaim } from './launch';
import { mirrorNodeClaimsQuietly, nodeClaimFacts } from './nodeclaim-mirror';
import { type RepairResult, repairUnhealthyNodes } from './repair';
import { startTermination } from './termination';

/** The pure decision functions; injectable so scripted tests can drive the orchestration. */

/** The re-check is scheduled by one Lambda and run by another (delayed, then relayed), whose clock may be a little
 * behind: a command due within this much counts as due, or the miss would defer it to the next Sweep tick, up to a
 * minute later. */
const CLOCK_SKEW_TOLERANCE_MS = 500;
export interface SweepEngine {
  plan(input: DisruptionInput): DisruptionPlan;
  validate(command: DisruptionCommand, fresh: DisruptionInput): ValidationResult;
  /** Overrides the cluster's consolidationValidationDelay setting (scripted engines in tests). */
  validationDelayMs?: number;
}

export const defaultSweepEngine: SweepEngine = {
  plan: planDisruption,
  validate,
};

/** A node whose disruption started (tainted, replacements launching or draining). */
export interface DisruptingNode {
  node: string;
  nodeClaim: string;
  nodePool: string;
  reason: string;
  forceful: boolean;
  /** The claim's terminationGracePeriod, when it has one: its drain ends there, whatever still blocks it. */
  terminationGracePeriod?: string;
}

export interface DisruptionSweepOptions {
  engine?: SweepEngine;
  options?: DisruptionOptions;
  /** Pod activity from a watch stream (the simulator); otherwise derived from pod creation times. */
  activity?: PodActivity;
  /** Per-NodePool history to plan with; derived from the claims' disruption records when absent. */
  history?: DisruptionHistory;
  /** Skip the planning step (only move in-flight commands along). */
  progressOnly?: boolean;
  /** When (on deps.clock) planning must stop so the invocation can still record and act on what it decided; the
   * provisioner derives it from the Lambda's remaining time (docs/disruption.md, A deadline for the sweep). A sweep
   * cut short keeps its commands and leaves a cursor in the store where the next sweep resumes. */
  deadline?: number;
  /** Keep decision records: claim → gist of its last Keep record, so an unchanged reason is not rewritten. */
  keepMemo?: Map<string, string>;
  /** How long a command waits for its replacements to initialize. Default: the replacementTimeout setting. */
  replacementTimeoutMs?: number;
  /** Told when a command starts disrupting its nodes (before any is drained). */
  onStart?: (nodes: DisruptingNode[]) => void;
  /** Told the name of each replacement claim launched, with the command's reason. */
  onReplacement?: (claim: string, reason: string) => void;
  /** Told when a command is dropped at validation or abandoned. */
  onDropped?: (command: DisruptionCommand, why: string) => void;
}

export interface DisruptionSweepResult {
  /** The sweep's plan; undefined when planning was skipped. */
  plan?: DisruptionPlan;
  /** The view the plan was made from. */
  input?: DisruptionInput;
  /** Command ids decided this sweep. */
  decided: string[];
  /** Command ids that tainted their candidates this sweep. */
  started: string[];
  /** Command ids whose candidates began terminating this sweep. */
  terminating: string[];
  /** Command ids dropped at validation or abandoned this sweep. */
  dropped: string[];
  /** Commands still in flight after the sweep (Validating or Launching). */
  inflight: number;
  /** The earliest validateAfter among in-flight commands, ms. */
  nextValidationAt?: number;
  /** Node repair's part of a planning sweep (shared/controllers/repair.ts); undefined when planning was skipped. */
  repair?: RepairResult;
  /** Consolidation candidates the planning deadline kept from being judged (0 when it finished; undefined when
   * planning was skipped). */
  candidatesDeferred?: number;
  /** Capacity-block nodes this sweep began draining ahead of the block's end (capacity-blocks.ts). */
  capacityBlocks?: CapacityBlockResult;
}

const HISTORY_KEEP_MS = 24 * 3_600_000;
const COMMAND_CAUSES = new Set<DisruptionCause>(['Empty', 'Underutilized', 'Drifted', 'Expired']);

interface Flight {
  command: DisruptionCommand;
  claims: NodeClaim[];
}

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

/** The per-NodePool history of the last 24 h, read back from the claims that commands disrupted, counted as
 * recordHistory counts a plan: one entry per command and NodePool, `removed` its claims in that pool, `launched` the
 * command's replacements in that pool, each once (every claim of a command names all its replacements, so counting
 * per claim made a 3-into-1 merge look like three replacing commands and tripped the churn back-off). */
export function historyFrom(claims: readonly NodeClaim[], now: number): DisruptionHistory {
  const poolOf = new Map(claims.map((c) => [c.name, c.nodePool]));
  const commands = new Map<string, { at: number; reason: CommandReason; claims: NodeClaim[] }>();
  for (const c of claims) {
    const d = c.disruption;
    if (!d || d.phase || !COMMAND_CAUSES.has(d.cause)) continue;
    const at = Date.parse(d.at);
    if (Number.isNaN(at) || at < now - HISTORY_KEEP_MS) continue;
    // Claims terminated before the command id was kept on them: a command's claims share their replacements.
    const key =
      d.commandId ?? (d.replacements?.length ? `launched:${[...d.replacements].sort().join(',')}` : `claim:${c.name}`);
    const command = commands.get(key);
    if (command) {
      command.claims.push(c);
      command.at = Math.min(command.at, at);
    } else commands.set(key, { at, reason: d.cause as CommandReason, claims: [c] });
  }
  const out: DisruptionHistory = {};
  for (const { at, reason, claims: members } of commands.values()) {
    const pools = [...new Set(members.map((c) => c.nodePool))].sort();
    const launched = [...new Set(members.flatMap((c) => c.disruption?.replacements ?? []))];
    for (const pool of pools) {
      const removed = members.filter((c) => c.nodePool === pool).length;
      // A replacement counts for its own NodePool; one whose claim is gone, for the command's first pool.
      const own = launched.filter((r) => (poolOf.get(r) ?? pools[0]) === pool).length;
      out[pool] = [...(out[pool] ?? []), { at, reason, removed, launched: own }];
    }
  }
  for (const entries of Object.values(out)) entries.sort((a, b) => a.at - b.at);
  return out;
}

/** The command as kept on its claims: only what validation, launching and termination read back (instance types
 * and pods by name, the record without its detail, which is already in the decision record), so a claim's item
 * stays small. */
export function encodeCommand(command: DisruptionCommand): string {
  const replacements = command.replacements.map((r) => ({
    ...r,
    instanceTypeOptions: r.instanceTypeOptions.map((t) => ({ name: t.name })),
    pods: r.pods.map((p) => ({ metadata: podRef(p) })),
  }));
  return JSON.stringify({ ...command, replacements, record: { ...command.record, detail: {} } });
}

function decodeCommand(text: string): DisruptionCommand | undefined {
  try {
    const command = JSON.parse(text) as DisruptionCommand;
    return Array.isArray(command.candidates) && Array.isArray(command.replacements) && command.record
      ? command
      : undefined;
  } catch {
    return undefined;
  }
}

class Run {
  constructor(
    private readonly deps: ControlPlaneDeps,
    private readonly engine: SweepEngine,
    private readonly opts: DisruptionSweepOptions,
    private readonly result: DisruptionSweepResult,
  ) {}

  /** Commands in flight, read back from their candidates' claims. */
  async inFlight(): Promise<Flight[]> {
    const claims = await this.deps.store.list({ states: ['Pending', 'Launched', 'Registered', 'Initialized'] });
    const byId = new Map<string, Flight>();
    const unreadable: NodeClaim[] = [];
    for (const c of claims) {
      const d = c.disruption;
      if (!d?.phase || !d.commandId || !d.command) continue;
      const flight = byId.get(d.commandId);
      if (flight) {
        flight.claims.push(c);
        continue;
      }
      const command = decodeCommand(d.command);
      if (command) byId.set(d.commandId, { command, claims: [c] });
      else unreadable.push(c);
    }
    if (unreadable.length) {
      // A command that cannot be read back (written by another version, or damaged) is given up, not retried.
      this.deps.log.warn('disruption command unreadable; releasing its claims', {
        nodeClaims: unreadable.map((c) => c.name),
      });
      await this.release(unreadable);
    }
    return [...byId.values()];
  }

  inputExtra(claims: readonly NodeClaim[], except?: Flight) {
    const marked = new Set<string>();
    for (const c of claims) {
      if (!c.disruption?.phase || !c.nodeName) continue;
      if (except && c.disruption.commandId === except.command.id) continue;
      marked.add(c.nodeName);
    }
    return {
      markedForDeletion: marked,
      // The cluster's settings, then what the caller overrides.
      options: { ...disruptionOptionsOf(this.deps.config.disruption), ...this.opts.options },
      ...(this.opts.activity ? { activity: this.opts.activity } : {}),
    };
  }

  async writeRecords(plan: DisruptionPlan): Promise<void> {
    for (const record of plan.records) {
      if (record.kind === 'Keep' && this.opts.keepMemo) {
        // The same reason every minute says nothing new: keep a record when a claim's reason changes.
        const gist = record.summary.replace(/\d+(\.\d+)?/g, '#');
        const claim = record.nodeClaims[0] ?? '';
        if (this.opts.keepMemo.get(claim) === gist) continue;
        this.opts.keepMemo.set(claim, gist);
      }
      await this.deps.store.putDecision(record);
    }
  }

  /** Writes the decided command on its candidates; a forceful one acts at once. */
  async decide(command: DisruptionCommand, input: DisruptionInput): Promise<void> {
    const encoded = encodeCommand(command);
    const at = new Date(input.now).toISOString();
    const delay = this.engine.validationDelayMs ?? this.deps.config.disruption.consolidationValidationDelayMs;
    const validateAfter = new Date(input.now + delay).toISOString();
    const claims: NodeClaim[] = [];
    for (const c of command.candidates) {
      const claim = await this.deps.store.get(c.nodeClaim);
      if (!claim || claim.disruption?.phase || !['Launched', 'Registered', 'Initialized'].includes(claim.state)) {
        return this.release(claims);
      }
      try {
        claims.push(
          await this.deps.store.update(claim, {
            disruption: {
              cause: command.reason,
              at,
              detail: command.record.summary,
              phase: 'Validating',
              commandId: command.id,
              validateAfter,
              command: encoded,
            },
          }),
        );
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        return this.release(claims);
      }
    }
    this.result.decided.push(command.id);
    if (command.forceful) await this.act({ command, claims }, input);
  }

  async progress(flight: Flight): Promise<void> {
    const d = flight.claims[0]?.disruption;
    const now = this.deps.clock.now();
    if (d?.phase === 'Validating') {
      if (now + CLOCK_SKEW_TOLERANCE_MS >= Date.parse(d.validateAfter ?? d.at)) await this.validateAndAct(flight);
    } else if (d?.phase === 'Launching') {
      await this.awaitReplacements(flight, now);
    }
  }

  private async validateAndAct(flight: Flight): Promise<void> {
    const claims = await this.deps.store.list();
    const { input } = await readDisruptionInput(this.deps, this.inputExtra(claims, flight));
    const checked = this.engine.validate(flight.command, input);
    if (!checked.command) {
      await this.drop(
        flight,
        `${flight.command.reason} command dropped at validation: ${checked.blockers.join('; ')}`,
        {
          suffix: 'dropped',
          detail: { command: flight.command.id, blockers: checked.blockers },
        },
      );
      return;
    }
    const keep = new Set(checked.command.candidates.map((c) => c.nodeClaim));
    await this.release(flight.claims.filter((c) => !keep.has(c.name)));
    await this.act({ command: checked.command, claims: flight.claims.filter((c) => keep.has(c.name)) }, input);
  }

  /** Taints the candidates, launches the replacements, and starts termination when there are none to wait for. */
  private async act(flight: Flight, input: DisruptionInput): Promise<void> {
    const { command } = flight;
    this.result.started.push(command.id);
    this.opts.onStart?.(
      command.candidates.map((c) => ({
        node: c.name,
        nodeClaim: c.nodeClaim,
        nodePool: c.nodePool,
        reason: command.reason,
        forceful: command.forceful,
        ...(c.terminationGracePeriod ? { terminationGracePeriod: c.terminationGracePeriod } : {}),
      })),
    );
    for (const c of command.candidates) await this.deps.kube.setDisruptedTaint(c.name, true);
    const replacements: string[] = [];
    for (const planned of command.replacements) {
      const name = await this.launchReplacement(planned, command.reason, input);
      if (name) replacements.push(name);
      else if (!command.forceful)
        return this.abort(flight, `replacement ${planned.name} could not launch`, replacements);
    }
    if (replacements.length === 0 || command.forceful) return this.terminate(flight, replacements);
    const deadline = new Date(
      this.deps.clock.now() + (this.opts.replacementTimeoutMs ?? this.deps.config.disruption.replacementTimeoutMs),
    ).toISOString();
    flight.claims = await this.patchAll(flight.claims, (d) => ({ ...d, phase: 'Launching', replacements, deadline }));
  }

  private async awaitReplacements(flight: Flight, now: number): Promise<void> {
    const d = flight.claims[0]?.disruption;
    const names = d?.replacements ?? [];
    const claims = await Promise.all(names.map((n) => this.deps.store.get(n)));
    if (claims.every((c) => c?.state === 'Initialized')) return this.terminate(flight, names);
    const lost = claims.some((c) => !c || c.state === 'Failed' || c.state === 'Terminated' || c.state === 'Draining');
    if (lost || now >= Date.parse(d?.deadline ?? d?.at ?? '')) {
      await this.abort(flight, lost ? 'a replacement failed' : 'replacements did not initialize in time', names);
    }
  }

  private async terminate(flight: Flight, replacements: string[]): Promise<void> {
    const { command } = flight;
    for (const c of command.candidates) {
      const claim = await this.deps.store.get(c.nodeClaim);
      if (!claim) continue;
      await startTermination(this.deps, claim, {
        cause: command.reason,
        detail: command.record.summary,
        commandId: command.id,
        ...(replacements.length ? { replacements } : {}),
      });
    }
    this.result.terminating.push(command.id);
  }

  /** Gives the candidates back: the taint comes off and the command is recorded as abandoned. */
  private async abort(flight: Flight, why: string, replacements: string[]): Promise<void> {
    for (const c of flight.command.candidates) await this.deps.kube.setDisruptedTaint(c.name, false);
    await this.drop(flight, `${flight.command.reason} command abandoned: ${why}`, {
      suffix: 'abandoned',
      detail: { command: flight.command.id, replacements },
    });
  }

  private async drop(
    flight: Flight,
    summary: string,
    record: { suffix: string; detail: Record<string, unknown> },
  ): Promise<void> {
    await this.release(flight.claims);
    this.result.dropped.push(flight.command.id);
    this.opts.onDropped?.(flight.command, summary);
    await this.deps.store.putDecision({
      id: `${flight.command.id}-${record.suffix}`,
      cluster: this.deps.cluster,
      at: new Date(this.deps.clock.now()).toISOString(),
      kind: 'Keep',
      nodeClaims: flight.command.candidates.map((c) => c.nodeClaim),
      summary,
      detail: record.detail,
    });
  }

  /** Clears the in-flight marks of claims that are no longer part of a command. */
  private async release(claims: readonly NodeClaim[]): Promise<void> {
    for (const claim of claims) {
      let current: NodeClaim | undefined = claim;
      for (let attempt = 0; attempt < 3 && current?.disruption?.phase; attempt++) {
        try {
          await this.deps.store.update(current, { disruption: undefined });
          break;
        } catch (err) {
          if (!(err instanceof ConflictError)) throw err;
          current = await this.deps.store.get(claim.name);
        }
      }
    }
  }

  private async patchAll(
    claims: readonly NodeClaim[],
    patch: (d: NonNullable<NodeClaim['disruption']>) => NonNullable<NodeClaim['disruption']>,
  ): Promise<NodeClaim[]> {
    const out: NodeClaim[] = [];
    for (const claim of claims) {
      let current: NodeClaim | undefined = claim;
      for (let attempt = 0; attempt < 3 && current?.disruption; attempt++) {
        try {
          current = await this.deps.store.update(current, { disruption: patch(current.disruption) });
          out.push(current);
          break;
        } catch (err) {
          if (!(err instanceof ConflictError)) throw err;
          current = await this.deps.store.get(claim.name);
        }
      }
    }
    return out;
  }

  private async launchReplacement(
    planned: PlannedNodeClaim,
    reason: string,
    input: DisruptionInput,
  ): Promise<string | undefined> {
    const { deps } = this;
    const nodePool = input.nodePools.find((p) => p.metadata.name === planned.nodePool);
    const nodeClass = input.nodeClasses.find((c) => c.metadata.name === planned.nodeClass);
    const createdAt = new Date(deps.clock.now()).toISOString();
    let claim: NodeClaim | undefined;
    for (let salt = 0; salt < 5 && !claim; salt++) {
      try {
        claim = await deps.store.create({
          name: salt ? `${planned.name}-${salt}` : planned.name,
          uid: newUid(deps),
          cluster: deps.cluster,
          nodePool: planned.nodePool,
          nodeClass: planned.nodeClass,
          state: 'Pending',
          version: 1,
          requirements: planned.requirements,
          instanceTypeOptions: planned.instanceTypeOptions.map((t) => t.name),
          labels: planned.labels,
          taints: planned.taints,
          startupTaints: planned.startupTaints,
          requests: planned.requests,
          nominatedPods: planned.pods.map(podRef),
          createdAt,
          stateTimes: { Pending: createdAt },
          // The hashes drift compares, as provisioning records them.
          ...claimHashes(nodePool, nodeClass),
          ...claimTemplateFields(nodePool, planned.minValuesRelaxed),
        });
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
      }
    }
    if (!claim) return undefined;
    this.opts.onReplacement?.(claim.name, reason);
    // The types as the command was planned or validated on them (unavailable offerings marked, NodeOverlays applied):
    // the catalog's own prices would launch the replacement at a price the plan never saw, and without prioritizing
    // the overlaid options in CreateFleet. Read once per sweep, not again per replacement.
    const types = input.instanceTypes.get(planned.nodePool) ?? [];
    const outcome = await launchClaim(deps, claim, { nodePool, nodeClass, types });
    return outcome.kind === 'launched' ? claim.name : undefined;
  }
}
