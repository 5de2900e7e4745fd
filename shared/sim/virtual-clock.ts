// Virtual time for simulations: nothing happens until the driver advances the clock, and timers fire in due-time
// order (ties in the order they were set), so a run is deterministic and takes no wall time.
import type { Clock } from '../ports';

export type TimerId = number;

interface Timer {
  id: TimerId;
  at: number;
  fn: () => void;
}

export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start: number | string = Date.UTC(2025, 0, 1)) {
    this.current = typeof start === 'string' ? Date.parse(start) : start;
    if (!Number.isFinite(this.current)) throw new RangeError(`invalid start time ${String(start)}`);
  }

  now(): number {
    return this.current;
  }

  iso(): string {
    return new Date(this.current).toISOString();
  }

  /** Runs `fn` once the clock reaches now + delayMs (immediately due timers still wait for the next advance). */
  setTimer(delayMs: number, fn: () => void): TimerId {
    const id = ++this.seq;
    const timer = { id, at: this.current + Math.max(0, delayMs), fn };
    // Keep the list sorted by (at, id): insert after every timer due at or before this one.
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1] as Timer).at > timer.at) i--;
    this.timers.splice(i, 0, timer);
    return id;
  }

  clearTimer(id: TimerId): boolean {
    const i = this.timers.findIndex((t) => t.id === id);
    if (i < 0) return false;
    this.timers.splice(i, 1);
    return true;
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  /** When the next timer is due, if any. */
  nextDue(): number | undefined {
    return this.timers[0]?.at;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way (including ones they set). */
  advance(ms: number): number {
    if (ms < 0) throw new RangeError('time only moves forward');
    return this.advanceTo(this.current + ms);
  }

  /** Moves time to `at`, firing due timers in order; returns how many fired. */
  advanceTo(at: number): number {
    let fired = 0;
    for (;;) {
      const head = this.timers[0];
      if (!head || head.at > at) break;
      this.timers.shift();
      this.current = Math.max(this.current, head.at);
      head.fn();
      fired++;
    }
    this.current = Math.max(this.current, at);
    return fired;
  }

  /** Fires timers until none is left or `limitMs` of virtual time has passed; returns how many fired. */
  runUntilIdle(limitMs = 24 * 3600_000): number {
    const end = this.current + limitMs;
    let fired = 0;
    for (;;) {
      const due = this.nextDue();
      if (due === undefined || due > end) break;
      fired += this.advanceTo(due);
    }
    return fired;
  }
}
