// Kubernetes Events with Karpenter's reasons, deduplicated and rate-limited: the same object, reason and message is
// written once per window, and a token bucket caps the write rate so a 5k-pod FailedScheduling burst costs at most
// `burst` API calls before settling at `perSecond`. Events are advisory; a failure to write one is reported, never
// thrown, so it cannot break the batch that produced it.
import type { Clock, ClusterEvent } from '../ports';

export interface EventRecorderOptions {
  dedupeWindowMs?: number;
  burst?: number;
  perSecond?: number;
  clock: Clock;
}

export class EventThrottle {
  private readonly seen = new Map<string, number>();
  private tokens: number;
  private refilledAt: number;
  private readonly dedupeWindowMs: number;
  private readonly burst: number;
  private readonly perSecond: number;

  constructor(private readonly options: EventRecorderOptions) {
    this.dedupeWindowMs = options.dedupeWindowMs ?? 120_000;
    this.burst = options.burst ?? 25;
    this.perSecond = options.perSecond ?? 1;
    this.tokens = this.burst;
    this.refilledAt = options.clock.now();
  }

  /** True when the event should be written now; records it as written. */
  admit(event: ClusterEvent): boolean {
    const now = this.options.clock.now();
    const key = eventKey(event);
    const last = this.seen.get(key);
    if (last !== undefined && now - last < this.dedupeWindowMs) return false;
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    this.seen.set(key, now);
    if (this.seen.size > 10_000) this.forgetOlderThan(now - this.dedupeWindowMs);
    return true;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [key, at] of this.seen) if (at < cutoff) this.seen.delete(key);
  }
}

export function eventKey(e: ClusterEvent): string {
  const o = e.involved;
  return [o.kind, o.namespace ?? '', o.name, o.uid ?? '', e.reason, e.message].join('\u0000');
}
