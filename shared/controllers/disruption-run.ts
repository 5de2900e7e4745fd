// Executing disruption commands across sweeps: a decided command is written on its candidates, re-checked once its
// validation delay has passed, then acted on (disrupted taint, replacements, termination) or dropped. Every step is
// a conditional write on the claims, so the sweep that takes a command up may run in another invocation.

import { claimHashes } from '../api/hash';
import type { NodeClaim } from '../api/nodeclaim';
import type { DisruptionCommand, DisruptionInput, DisruptionPlan } from '../disruption';
import { disruptionOptionsOf } from '../disruption';
import { ConflictError } from '../errors';
import type { PlannedNodeClaim } from '../scheduling';
import type { ControlPlaneDeps } from './deps';
import { decodeCommand, encodeCommand } from './disruption-command';
import { readDisruptionInput } from './disruption-input';
import type { DisruptionSweepOptions, DisruptionSweepResult, SweepEngine } from './disruption-sweep-types';
import { emitEvent } from './events';
import { disruptionLaunching, disruptionTerminating, disruptionWaitingReadiness } from './karpenter-events';
import { launchClaim } from './launch';
import { claimFromPlan } from './planned-claim';
import { startTermination } from './termination';

/** The re-check is scheduled by one Lambda and run by another (delayed, then relayed), whose clock may be a little
 * behind: a command due within this much counts as due, or the miss would defer it to the next Sweep tick, up to a
 * minute later. */
const CLOCK_SKEW_TOLERANCE_MS = 500;

export interface Flight {
  command: DisruptionCommand;
  claims: NodeClaim[];
}

export class Run {
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
    for (const name of replacements) await emitEvent(this.deps, disruptionWaitingReadiness(name));
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
      return;
    }
    for (const c of claims) {
      if (c && c.state !== 'Initialized') await emitEvent(this.deps, disruptionWaitingReadiness(c.name));
    }
  }

  private async terminate(flight: Flight, replacements: string[]): Promise<void> {
    const { command } = flight;
    for (const c of command.candidates) {
      const claim = await this.deps.store.get(c.nodeClaim);
      if (!claim) continue;
      const started = await startTermination(this.deps, claim, {
        cause: command.reason,
        detail: command.record.summary,
        commandId: command.id,
        ...(replacements.length ? { replacements } : {}),
      });
      if (!started) continue;
      for (const event of disruptionTerminating(claim.nodeName, claim.name, command.reason)) {
        await emitEvent(this.deps, event);
      }
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
        claim = await deps.store.create(
          claimFromPlan(deps, planned, {
            name: salt ? `${planned.name}-${salt}` : planned.name,
            createdAt,
            nodePool,
            // The hashes drift compares, as provisioning records them.
            hashes: claimHashes(nodePool, nodeClass),
          }),
        );
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
    if (outcome.kind !== 'launched') return undefined;
    await emitEvent(deps, disruptionLaunching(claim.name, reason));
    return claim.name;
  }
}
