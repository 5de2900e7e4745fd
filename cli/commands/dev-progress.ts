// The line `karpless dev --aws-endpoint` prints while it waits: which pods it waits for and how far the virtual
// clock is from where the run stops. Each step of the run costs real calls to the endpoint, so minutes can pass
// between two things happening; the line says the run is alive and what it is waiting for.
import type { Pod } from '../../shared/api/kube';
import { naturalOrder } from '../format/pending-groups';

/** Wall time between two lines while nothing changes. */
const QUIET_MS = 5_000;
/** A step (a provisioning pass with its launches) can take this long and more on a slow endpoint: say so. */
const HEARTBEAT_MS = 15_000;

export class WaitProgress {
  private lastAt = Number.NEGATIVE_INFINITY;
  private lastPending = '';
  private lastLine = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly print: (line: string) => void,
    /** Where the run stops: the --until duration, or the limit of a run to settle. */
    private readonly stop: { ms: number; flag: string },
    private readonly now: () => number = Date.now,
  ) {}

  /** Called after every step; prints when the pending pods changed or QUIET_MS passed since the last line. */
  step(virtualMs: number, pending: readonly Pod[]): void {
    const names = pending.map((p) => p.metadata.name).sort(naturalOrder);
    const key = names.join(',');
    if (key === this.lastPending && this.now() - this.lastAt < QUIET_MS) return;
    if (names.length === 0 && this.lastPending === '') return;
    this.lastPending = key;
    const at = `virtual time ${clock(virtualMs)} of ${clock(this.stop.ms)} (${this.stop.flag})`;
    const shown = names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')}, …`;
    this.line(
      names.length === 0
        ? `every pod is bound; ${at}`
        : `waiting for ${names.length} pending pod(s) to bind (${shown}); ${at}`,
    );
  }

  /** While one step runs long, repeats the last line every HEARTBEAT_MS of wall time, so the run never goes quiet. */
  startHeartbeat(): void {
    // The repeat leaves lastAt alone, so the next step still prints where the virtual clock has got to.
    this.timer = setInterval(() => {
      if (this.lastLine && this.now() - this.lastAt >= HEARTBEAT_MS) {
        this.print(`still ${this.lastLine} (the handlers are calling the endpoint)`);
      }
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  stopHeartbeat(): void {
    clearInterval(this.timer);
  }

  private line(text: string): void {
    this.lastLine = text;
    this.lastAt = this.now();
    this.print(text);
  }
}

/** 95_000 → "1m35s". */
function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
