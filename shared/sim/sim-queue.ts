// The cluster's SQS queues in memory: messages become visible after their delay and are taken in send order, so
// the termination state machine re-queues itself exactly as it does on SQS.
import type { QueueMessage, WorkQueue } from '../ports';

interface Queued {
  body: string;
  visibleAt: number;
  seq: number;
}

export class SimQueue implements WorkQueue {
  private waiting: Queued[] = [];
  private seq = 0;

  constructor(private readonly clock: { now(): number }) {}

  async send(message: QueueMessage): Promise<void> {
    this.waiting.push({
      body: message.body,
      visibleAt: this.clock.now() + (message.delaySeconds ?? 0) * 1000,
      seq: this.seq++,
    });
  }

  /** Bodies visible now, oldest first; they leave the queue. */
  take(): string[] {
    const now = this.clock.now();
    const ready = this.waiting.filter((m) => m.visibleAt <= now);
    this.waiting = this.waiting.filter((m) => m.visibleAt > now);
    return ready.sort((a, b) => a.visibleAt - b.visibleAt || a.seq - b.seq).map((m) => m.body);
  }

  /** When the next message becomes visible. */
  nextVisible(): number | undefined {
    let next: number | undefined;
    for (const m of this.waiting) if (next === undefined || m.visibleAt < next) next = m.visibleAt;
    return next;
  }
}
