// Runs the control plane's disruption use-case (shared/controllers/disruption) in a scenario: the same resumable
// orchestration the provisioner's Sweep tick runs in Lambda (decide → 15 s re-check → taint + replacements → wait for
// them → termination; forceful commands skip the waits), with the commands' phases on the claims. What stays here is
// the simulator's bookkeeping: the watch-stream activity, the quiet skip of unchanged clusters, and which nodes are
// disrupting (for the observer and the timeline). The churn history is production's too: read back from the claims.

import { claimExpireAfter } from '../../api/claim-template';
import { parseDuration } from '../../api/quantity';
import type { ControlPlaneDeps } from '../../controllers';
import {
  type DisruptingNode,
  type DisruptionSweepOptions,
  type DisruptionSweepResult,
  disruptionSweep,
  type SweepEngine,
} from '../../controllers';
import type { DisruptionInput, DisruptionOptions, DisruptionPlan } from '../../disruption';
import type { ClusterActivity } from './activity';

export type { DisruptingNode, SweepEngine };

/** When the first node reaches the expireAfter its claim was launched with (expiration is due without any change in
 * the cluster). */
function nextExpiry(input: Pick<DisruptionInput, 'nodes' | 'nodePools'>): number {
  let next = Number.POSITIVE_INFINITY;
  for (const n of input.nodes) {
    const pool = input.nodePools.find((p) => p.metadata.name === n.claim.nodePool);
    const text = claimExpireAfter(n.claim, pool);
    if (!text || text === 'Never') continue;
    try {
      next = Math.min(next, Date.parse(n.claim.createdAt) + parseDuration(text));
    } catch {
      // an unreadable expireAfter is reported by validation; it never expires here
    }
  }
  return next;
}

/** A command that started disrupting its nodes, until they are all terminated. */
export interface CommandInFlight {
  id: string;
  nodes: DisruptingNode[];
}

/** How long a sweep that found nothing to do stands for an unchanged cluster (Karpenter re-checks a consolidated
 * cluster after 5 minutes too). */
const QUIET_TTL_MS = 5 * 60_000;
/** Blockers that lift by themselves as time passes: a sweep that met one must run again on schedule. */
const TIME_BASED = /not consolidatable for another|nominated \d+s ago|schedule|do-not-disrupt until/;

export class DisruptionDriver {
  /** Commands that started and whose nodes are not all terminated yet. */
  readonly inflight: CommandInFlight[] = [];
  /** Nodes whose disruption started (tainted or draining), by node name. */
  readonly disrupting = new Map<string, DisruptingNode>();
  /** Replacement claim name → the command reason, for the timeline. */
  readonly replacementOf = new Map<string, string>();
  private readonly keepMemo = new Map<string, string>();
  private readonly startListeners: ((nodes: DisruptingNode[]) => void)[] = [];
  private quiet: { signature: string; until: number } | undefined;
  /** Commands decided or launching, on the claims (as of the last call into the use-case). */
  private pending = 0;
  private nextValidation: number | undefined;
  private engineModel: SweepEngine;
  commandsStarted = 0;
  commandsDropped = 0;
  sweepsPlanned = 0;

  /** `signature` names the cluster's state (changes seen, store writes, NodePool versions): while it holds, a sweep
   * that decided nothing is not repeated. */
  constructor(
    private readonly deps: ControlPlaneDeps,
    private readonly activity: ClusterActivity,
    engine: SweepEngine,
    private readonly options: DisruptionOptions = {},
    private readonly signature: () => string = () => String(Math.random()),
  ) {
    this.engineModel = engine;
  }

  /** Told when a command starts disrupting its nodes (before any of them is drained). */
  onStart(listener: (nodes: DisruptingNode[]) => void): void {
    this.startListeners.push(listener);
  }

  /** One sweep: moves commands along, decides and writes the new ones; forceful ones act at once. Undefined when
   * skipped: nothing changed since a sweep that found nothing to do. */
  async sweep(): Promise<DisruptionPlan | undefined> {
    const now = this.deps.clock.now();
    const signature = this.signature();
    if (this.quiet && this.quiet.signature === signature && now < this.quiet.until && !this.busy()) return undefined;
    const result = await this.run({ keepMemo: this.keepMemo });
    const plan = result.plan;
    if (!plan) return undefined;
    this.sweepsPlanned++;
    const waiting = plan.rejected.some((r) => r.blockers.some((b) => TIME_BASED.test(b)));
    const repairDue = result.repair?.nextRepairAt ?? Number.POSITIVE_INFINITY;
    this.quiet =
      plan.commands.length === 0 && !waiting && (result.repair?.repaired.length ?? 0) === 0
        ? {
            signature,
            until: Math.min(now + QUIET_TTL_MS, nextExpiry(result.input ?? { nodes: [], nodePools: [] }), repairDue),
          }
        : undefined;
    return plan;
  }

  /** Moves every command along: validation when due, termination once replacements are up; forgets commands whose
   * nodes are all gone. */
  async progress(): Promise<void> {
    if (this.pending > 0) await this.run({ progressOnly: true });
    for (let i = this.inflight.length - 1; i >= 0; i--) {
      const flight = this.inflight[i];
      if (!flight) continue;
      const claims = await Promise.all(flight.nodes.map((n) => this.deps.store.get(n.nodeClaim)));
      if (!claims.every((c) => !c || c.state === 'Terminated')) continue;
      for (const n of flight.nodes) this.disrupting.delete(n.node);
      this.inflight.splice(i, 1);
    }
  }

  /** The next time `progress` has something scheduled to do (validation); replacements and drains progress on
   * cluster changes and queue messages. */
  nextDue(): number | undefined {
    return this.nextValidation;
  }

  busy(): boolean {
    return this.pending > 0 || this.inflight.length > 0;
  }

  private async run(extra: Partial<DisruptionSweepOptions>): Promise<DisruptionSweepResult> {
    const result = await disruptionSweep(this.deps, {
      engine: this.engineModel,
      options: this.options,
      activity: this.activity,
      ...extra,
      onStart: (nodes) => {
        const id = `${this.commandsStarted}`;
        this.inflight.push({ id, nodes });
        for (const d of nodes) this.disrupting.set(d.node, d);
        for (const l of this.startListeners) l(nodes);
      },
      onReplacement: (claim, reason) => this.replacementOf.set(claim, reason),
      onDropped: (command) => {
        for (const c of command.candidates) this.disrupting.delete(c.name);
        const at = this.inflight.findIndex((f) =>
          f.nodes.some((n) => command.candidates.some((c) => c.name === n.node)),
        );
        if (at >= 0) this.inflight.splice(at, 1);
      },
    });
    this.commandsStarted += result.started.length;
    this.commandsDropped += result.dropped.length;
    this.pending = result.inflight;
    this.nextValidation = result.nextValidationAt;
    return result;
  }
}
