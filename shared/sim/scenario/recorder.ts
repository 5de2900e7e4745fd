// The story of a run: a timeline of NodeClaim and pod events, cost and fleet size over time, and totals (node hours,
// cost, disruptions, evictions, the longest time a pod waited). Claim events come from diffing the store after each
// instant, so they reflect what the control plane wrote, not what the runner intended.
import type { NodeClaim, NodeClaimState } from '../../api/nodeclaim';
import { formatDuration } from '../../api/quantity';
import type { CloudInstance } from '../../ports';

export type TimelineType =
  | 'Launched'
  | 'Registered'
  | 'Initialized'
  | 'Nominated'
  | 'Bound'
  | 'Disrupting'
  | 'Drained'
  | 'Terminated'
  | 'Interrupted'
  | 'Unschedulable';

export interface TimelineEntry {
  at: string;
  type: TimelineType;
  nodeClaim: string;
  reason: string;
  detail: string;
}

export interface CostSample {
  at: string;
  costPerHour: number;
  lowerBoundPerHour: number;
}

export interface FleetSample {
  at: string;
  nodes: number;
  byNodePool: Record<string, number>;
}

/** Pods pending at `at`, and the most pending at any instant until the next sample (time-to-capacity after an
 * interruption is often shorter than the sampling period, so the peak is what shows it). */
export interface PendingSample {
  at: string;
  pending: number;
  peak: number;
}

export interface Totals {
  nodeHours: number;
  cost: number;
  disruptions: number;
  podEvictions: number;
  maxPendingSeconds: number;
}

const GRACEFUL_OR_EXPIRED: ReadonlySet<string> = new Set(['Empty', 'Underutilized', 'Drifted', 'Expired']);
const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;

export class Recorder {
  readonly timeline: TimelineEntry[] = [];
  readonly costOverTime: CostSample[] = [];
  readonly fleetOverTime: FleetSample[] = [];
  readonly pendingOverTime: PendingSample[] = [];
  /** Times (offset ms) of each disruption start, per NodePool: churn tests read it. */
  readonly disruptionTimes: { at: number; nodePool: string; reason: string; nodeClaim: string }[] = [];
  private readonly states = new Map<string, NodeClaimState>();
  private readonly pendingSince = new Map<string, number>();
  private nodeMs = 0;
  private dollarMs = 0;
  private maxPendingMs = 0;
  disruptions = 0;

  constructor(private readonly start: number) {}

  offset(now: number): string {
    return formatDuration(now - this.start);
  }

  add(now: number, type: TimelineType, nodeClaim: string, reason: string, detail: string): void {
    this.timeline.push({ at: this.offset(now), type, nodeClaim, reason, detail });
  }

  /** Timeline entries for every state a claim entered since the last look. */
  observeClaims(now: number, claims: NodeClaim[], replacementOf: (claim: string) => string | undefined): void {
    for (const c of claims) {
      const before = this.states.get(c.name);
      if (before === c.state) continue;
      this.states.set(c.name, c.state);
      const order: NodeClaimState[] = ['Launched', 'Registered', 'Initialized', 'Draining', 'Terminated'];
      const from = before ? order.indexOf(before) : -1;
      for (const s of order.slice(from + 1, order.indexOf(c.state) + 1)) this.claimEvent(now, c, s, replacementOf);
      if (c.state === 'Failed')
        this.add(now, 'Unschedulable', c.name, c.failure?.reason ?? 'Failed', c.failure?.message ?? '');
    }
  }

  private claimEvent(
    now: number,
    c: NodeClaim,
    state: NodeClaimState,
    replacementOf: (n: string) => string | undefined,
  ): void {
    const what = `${c.instanceType ?? '?'} ${c.capacityType ?? ''} ${c.zone ?? ''}`.replace(/\s+/g, ' ').trim();
    switch (state) {
      case 'Launched': {
        const replacing = replacementOf(c.name);
        this.add(
          now,
          'Launched',
          c.name,
          replacing ? `Replacement (${replacing})` : 'Provisioning',
          `${what} $${round(c.pricePerHour ?? 0)}/h, NodePool ${c.nodePool}, ${c.nominatedPods.length} pod(s) nominated`,
        );
        break;
      }
      case 'Registered':
        this.add(now, 'Registered', c.name, 'Registered', `node ${c.nodeName ?? '?'}`);
        break;
      case 'Initialized':
        this.add(now, 'Initialized', c.name, 'Initialized', `node ${c.nodeName ?? '?'} ready`);
        break;
      case 'Draining': {
        const cause = c.disruption?.cause ?? 'Deleted';
        const interrupted = cause === 'Interrupted';
        if (GRACEFUL_OR_EXPIRED.has(cause)) {
          this.disruptions++;
          this.disruptionTimes.push({ at: now - this.start, nodePool: c.nodePool, reason: cause, nodeClaim: c.name });
        }
        this.add(now, interrupted ? 'Interrupted' : 'Disrupting', c.name, cause, c.disruption?.detail ?? '');
        break;
      }
      case 'Terminated':
        if (c.drain)
          this.add(now, 'Drained', c.name, c.disruption?.cause ?? 'Deleted', `${c.drain.evicted ?? 0} pod(s) evicted`);
        this.add(
          now,
          'Terminated',
          c.name,
          c.disruption?.cause ?? c.failure?.reason ?? 'Deleted',
          `${what}${c.nodeName ? `, node ${c.nodeName}` : ''}`,
        );
        break;
      default:
        break;
    }
  }

  /** Accrues node hours and cost for the time the fleet ran as it is now. */
  accrue(ms: number, instances: CloudInstance[]): void {
    if (ms <= 0) return;
    this.nodeMs += ms * instances.length;
    this.dollarMs += ms * instances.reduce((s, i) => s + i.pricePerHour, 0);
  }

  /** Tracks how long pods stay pending (by uid: a recreated pod starts its own wait). */
  observePending(now: number, pendingUids: string[]): void {
    const current = new Set(pendingUids);
    for (const [uid, since] of this.pendingSince) {
      if (!current.has(uid)) {
        this.maxPendingMs = Math.max(this.maxPendingMs, now - since);
        this.pendingSince.delete(uid);
      }
    }
    for (const uid of current) if (!this.pendingSince.has(uid)) this.pendingSince.set(uid, now);
    const last = this.pendingOverTime.at(-1);
    if (last) last.peak = Math.max(last.peak, current.size);
  }

  sample(now: number, instances: CloudInstance[], lowerBoundPerHour: number, pending: number): void {
    const byNodePool: Record<string, number> = {};
    for (const i of instances) {
      const pool = i.tags['karpenter.sh/nodepool'] ?? '?';
      byNodePool[pool] = (byNodePool[pool] ?? 0) + 1;
    }
    const at = this.offset(now);
    this.costOverTime.push({
      at,
      costPerHour: round(instances.reduce((s, i) => s + i.pricePerHour, 0)),
      lowerBoundPerHour: round(lowerBoundPerHour),
    });
    this.fleetOverTime.push({ at, nodes: instances.length, byNodePool });
    this.pendingOverTime.push({ at, pending, peak: pending });
  }

  totals(now: number, podEvictions: number): Totals {
    let maxPending = this.maxPendingMs;
    for (const since of this.pendingSince.values()) maxPending = Math.max(maxPending, now - since);
    return {
      nodeHours: round(this.nodeMs / 3_600_000, 3),
      cost: round(this.dollarMs / 3_600_000),
      disruptions: this.disruptions,
      podEvictions,
      maxPendingSeconds: Math.round(maxPending / 1000),
    };
  }
}
