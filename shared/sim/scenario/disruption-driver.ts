// Carries out disruption sweeps the way Karpenter's orchestration does, through the control plane's own use-cases:
// decide (planDisruption) → wait 15 s and re-check (validate) → taint the candidates and launch the replacements
// (launchClaim) → wait for them to initialize → start termination (startTermination; the drain runs as queued
// terminateStep calls). Forceful commands (expiration) skip the wait. Every decision is written to the store.

import { specHash } from '../../api/hash';
import type { DisruptionCause, NodeClaim } from '../../api/nodeclaim';
import { parseDuration } from '../../api/quantity';
import type { ControlPlaneDeps } from '../../controllers/deps';
import { newUid } from '../../controllers/ids';
import { launchClaim } from '../../controllers/launch';
import { podRef } from '../../controllers/pods';
import { startTermination } from '../../controllers/termination';
import type {
  DisruptionCommand,
  DisruptionHistory,
  DisruptionInput,
  DisruptionOptions,
  DisruptionPlan,
} from '../../disruption/types';
import type { ValidationResult } from '../../disruption/validate';
import { ConflictError } from '../../errors';
import type { PlannedNodeClaim } from '../../scheduling/types';
import type { ClusterActivity } from './activity';
import { readDisruptionInput } from './disruption-input';

/** When the first node reaches its NodePool's expireAfter (expiration is due without any change in the cluster). */
function nextExpiry(input: DisruptionInput): number {
  let next = Number.POSITIVE_INFINITY;
  for (const n of input.nodes) {
    const pool = input.nodePools.find((p) => p.metadata.name === n.claim.nodePool);
    const text = pool?.spec.template.spec.expireAfter;
    if (!text || text === 'Never') continue;
    try {
      next = Math.min(next, Date.parse(n.claim.createdAt) + parseDuration(text));
    } catch {
      // an unreadable expireAfter is reported by validation; it never expires here
    }
  }
  return next;
}

/** The pure decision functions; injected so the runner works with any sweep (and tests can script one). */
export interface SweepEngine {
  plan(input: DisruptionInput): DisruptionPlan;
  validate(command: DisruptionCommand, fresh: DisruptionInput): ValidationResult;
  recordHistory(history: DisruptionHistory, plan: DisruptionPlan): DisruptionHistory;
  validationDelayMs: number;
}

type Phase = 'validating' | 'launching' | 'draining' | 'done';

export interface CommandInFlight {
  command: DisruptionCommand;
  phase: Phase;
  /** When validation is due (validating) or when waiting for replacements gives up (launching). */
  dueAt: number;
  replacements: string[];
}

/** A node the sweep is disrupting, with the command's reason: the observer checks budgets and evictions by it. */
export interface DisruptingNode {
  node: string;
  nodeClaim: string;
  nodePool: string;
  reason: string;
  forceful: boolean;
}

const REPLACEMENT_TIMEOUT_MS = 10 * 60_000;
/** How long a sweep that found nothing to do stands for an unchanged cluster (Karpenter re-checks a consolidated
 * cluster after 5 minutes too). */
const QUIET_TTL_MS = 5 * 60_000;
/** Blockers that lift by themselves as time passes: a sweep that met one must run again on schedule. */
const TIME_BASED = /not consolidatable for another|nominated \d+s ago|schedule/;

export class DisruptionDriver {
  history: DisruptionHistory = {};
  readonly inflight: CommandInFlight[] = [];
  /** Nodes whose disruption started (tainted or draining), by node name. */
  readonly disrupting = new Map<string, DisruptingNode>();
  /** Replacement claim name → the command reason, for the timeline. */
  readonly replacementOf = new Map<string, string>();
  private readonly lastKeep = new Map<string, string>();
  private readonly startListeners: ((nodes: DisruptingNode[]) => void)[] = [];
  private quiet: { signature: string; until: number } | undefined;
  commandsStarted = 0;
  commandsDropped = 0;
  sweepsPlanned = 0;

  /** `signature` names the cluster's state (changes seen, store writes, NodePool versions): while it holds, a sweep
   * that decided nothing is not repeated. */
  constructor(
    private readonly deps: ControlPlaneDeps,
    private readonly activity: ClusterActivity,
    private readonly engine: SweepEngine,
    private readonly options: DisruptionOptions = {},
    private readonly signature: () => string = () => String(Math.random()),
  ) {}

  /** Told when a command starts disrupting its nodes (before any of them is drained). */
  onStart(listener: (nodes: DisruptingNode[]) => void): void {
    this.startListeners.push(listener);
  }

  /** One sweep: decide and queue the commands; forceful ones act at once. Undefined when skipped: nothing changed
   * since a sweep that found nothing to do. */
  async sweep(): Promise<DisruptionPlan | undefined> {
    const now = this.deps.clock.now();
    const signature = this.signature();
    if (this.quiet && this.quiet.signature === signature && now < this.quiet.until && this.inflight.length === 0) {
      return undefined;
    }
    const { input } = await readDisruptionInput(this.deps, this.activity, {
      history: this.history,
      markedForDeletion: this.marked(),
      options: this.options,
    });
    const plan = this.engine.plan(input);
    this.sweepsPlanned++;
    this.history = this.engine.recordHistory(this.history, plan);
    const waiting = plan.rejected.some((r) => r.blockers.some((b) => TIME_BASED.test(b)));
    this.quiet =
      plan.commands.length === 0 && !waiting
        ? { signature, until: Math.min(now + QUIET_TTL_MS, nextExpiry(input)) }
        : undefined;
    for (const record of plan.records) {
      if (record.kind === 'Keep') {
        // The same reason every minute says nothing new: keep a record when a claim's reason changes.
        const gist = record.summary.replace(/\d+(\.\d+)?/g, '#');
        const claim = record.nodeClaims[0] ?? '';
        if (this.lastKeep.get(claim) === gist) continue;
        this.lastKeep.set(claim, gist);
      }
      await this.deps.store.putDecision(record);
    }
    for (const command of plan.commands) {
      const flight: CommandInFlight = {
        command,
        phase: 'validating',
        dueAt: input.now + this.engine.validationDelayMs,
        replacements: [],
      };
      this.inflight.push(flight);
      if (command.forceful) await this.act(flight);
    }
    return plan;
  }

  /** Moves every command along: validation when due, termination once replacements are up. */
  async progress(): Promise<void> {
    const now = this.deps.clock.now();
    for (const flight of this.inflight) {
      if (flight.phase === 'validating' && now >= flight.dueAt) await this.validateAndAct(flight);
      else if (flight.phase === 'launching') await this.awaitReplacements(flight, now);
      else if (flight.phase === 'draining') await this.checkDrained(flight);
    }
    for (let i = this.inflight.length - 1; i >= 0; i--)
      if (this.inflight[i]?.phase === 'done') this.inflight.splice(i, 1);
  }

  /** The next time `progress` has something scheduled to do (validation); replacements and drains progress on
   * cluster changes and queue messages. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const f of this.inflight)
      if (f.phase === 'validating' && (next === undefined || f.dueAt < next)) next = f.dueAt;
    return next;
  }

  busy(): boolean {
    return this.inflight.length > 0;
  }

  private marked(except?: CommandInFlight): Set<string> {
    const out = new Set<string>();
    for (const f of this.inflight) if (f !== except) for (const c of f.command.candidates) out.add(c.name);
    return out;
  }

  private async validateAndAct(flight: CommandInFlight): Promise<void> {
    const { input } = await readDisruptionInput(this.deps, this.activity, {
      history: this.history,
      markedForDeletion: this.marked(flight),
      options: this.options,
    });
    const result = this.engine.validate(flight.command, input);
    if (!result.command) {
      this.commandsDropped++;
      flight.phase = 'done';
      await this.deps.store.putDecision({
        id: `${flight.command.id}-dropped`,
        cluster: this.deps.cluster,
        at: new Date(input.now).toISOString(),
        kind: 'Keep',
        nodeClaims: flight.command.candidates.map((c) => c.nodeClaim),
        summary: `${flight.command.reason} command dropped at validation: ${result.blockers.join('; ')}`,
        detail: { command: flight.command.id, blockers: result.blockers },
      });
      return;
    }
    flight.command = result.command;
    await this.act(flight);
  }

  /** Taints the candidates, launches the replacements, and starts termination when there are none to wait for. */
  private async act(flight: CommandInFlight): Promise<void> {
    const { command } = flight;
    this.commandsStarted++;
    const started: DisruptingNode[] = command.candidates.map((c) => ({
      node: c.name,
      nodeClaim: c.nodeClaim,
      nodePool: c.nodePool,
      reason: command.reason,
      forceful: command.forceful,
    }));
    for (const d of started) this.disrupting.set(d.node, d);
    for (const l of this.startListeners) l(started);
    for (const c of command.candidates) await this.deps.kube.setDisruptedTaint(c.name, true);
    for (const planned of command.replacements) {
      const name = await this.launchReplacement(planned, command.reason);
      if (name) flight.replacements.push(name);
      else if (!command.forceful) return this.abort(flight, `replacement ${planned.name} could not launch`);
    }
    if (flight.replacements.length === 0 || command.forceful) return this.terminateCandidates(flight);
    flight.phase = 'launching';
    flight.dueAt = this.deps.clock.now() + REPLACEMENT_TIMEOUT_MS;
  }

  private async launchReplacement(planned: PlannedNodeClaim, reason: string): Promise<string | undefined> {
    const { deps } = this;
    const pools = await deps.kube.listNodePools();
    const classes = await deps.kube.listNodeClasses();
    const nodePool = pools.find((p) => p.metadata.name === planned.nodePool);
    const nodeClass = classes.find((c) => c.metadata.name === planned.nodeClass);
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
          ...(nodePool ? { nodePoolHash: specHash(nodePool.spec.template) } : {}),
          ...(nodeClass ? { nodeClassHash: specHash(nodeClass.spec) } : {}),
        });
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
      }
    }
    if (!claim) return undefined;
    this.replacementOf.set(claim.name, reason);
    const types = nodeClass ? await deps.cloud.getInstanceTypes(nodeClass) : [];
    const unavailable = await deps.store.listUnavailable(deps.clock.now());
    const gone = new Set(unavailable.map((u) => `${u.instanceType}/${u.zone}/${u.capacityType}`));
    const outcome = await launchClaim(deps, claim, {
      nodePool,
      nodeClass,
      types: types.map((t) => ({
        ...t,
        offerings: t.offerings.map((o) =>
          gone.has(`${t.name}/${o.zone}/${o.capacityType}`) ? { ...o, available: false } : o,
        ),
      })),
    });
    return outcome.kind === 'launched' ? claim.name : undefined;
  }

  private async awaitReplacements(flight: CommandInFlight, now: number): Promise<void> {
    const claims = await Promise.all(flight.replacements.map((n) => this.deps.store.get(n)));
    if (claims.every((c) => c?.state === 'Initialized')) return this.terminateCandidates(flight);
    const lost = claims.some((c) => !c || c.state === 'Failed' || c.state === 'Terminated' || c.state === 'Draining');
    if (lost || now >= flight.dueAt)
      await this.abort(flight, lost ? 'a replacement failed' : 'replacements did not initialize in time');
  }

  private async terminateCandidates(flight: CommandInFlight): Promise<void> {
    const { command } = flight;
    for (const c of command.candidates) {
      const claim = await this.deps.store.get(c.nodeClaim);
      if (!claim) continue;
      await startTermination(this.deps, claim, {
        cause: command.reason as DisruptionCause,
        detail: command.record.summary,
        ...(flight.replacements.length ? { replacements: flight.replacements } : {}),
      });
    }
    flight.phase = 'draining';
  }

  private async checkDrained(flight: CommandInFlight): Promise<void> {
    const claims = await Promise.all(flight.command.candidates.map((c) => this.deps.store.get(c.nodeClaim)));
    if (claims.every((c) => !c || c.state === 'Terminated')) {
      for (const c of flight.command.candidates) this.disrupting.delete(c.name);
      flight.phase = 'done';
    }
  }

  /** Gives the candidates back: the taint comes off and the command is recorded as abandoned. */
  private async abort(flight: CommandInFlight, why: string): Promise<void> {
    for (const c of flight.command.candidates) {
      await this.deps.kube.setDisruptedTaint(c.name, false);
      this.disrupting.delete(c.name);
    }
    flight.phase = 'done';
    this.commandsDropped++;
    await this.deps.store.putDecision({
      id: `${flight.command.id}-abandoned`,
      cluster: this.deps.cluster,
      at: new Date(this.deps.clock.now()).toISOString(),
      kind: 'Keep',
      nodeClaims: flight.command.candidates.map((c) => c.nodeClaim),
      summary: `${flight.command.reason} command abandoned: ${why}`,
      detail: { command: flight.command.id, replacements: flight.replacements },
    });
  }
}
