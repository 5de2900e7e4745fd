// Notes on the timeline each message that lands in a DLQ, once.
import type { MemoryQueue } from '../shared/sim/sqs';
import type { PipelineTimeline } from './pipeline-timeline';

export class DeadLetterWatch {
  /** How many messages of each DLQ are already noted. */
  private readonly noted: number[];

  constructor(
    private readonly dlqs: readonly MemoryQueue[],
    private readonly timeline: PipelineTimeline,
  ) {
    this.noted = dlqs.map(() => 0);
  }

  check(): void {
    this.dlqs.forEach((dlq, i) => {
      const held = dlq.peek();
      for (const m of held.slice(this.noted[i])) {
        this.timeline.note(
          'dead-letter',
          `message ${m.messageId} moved to ${dlq.name}`,
          m.messageId,
          m.body.slice(0, 120),
        );
      }
      this.noted[i] = held.length;
    });
  }
}
