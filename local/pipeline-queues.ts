// The pipeline's in-memory SQS queues, each with its DLQ, configured as the stack deploys them.

import type { VirtualClock } from '../shared/sim';
import { MemoryQueue } from '../shared/sim/sqs';

/** maxReceiveCount per queue, as stacks/constructs/queues.ts sets it. */
export const MAX_RECEIVE = { events: 5, interruption: 3, termination: 10 } as const;
/** Visibility timeouts: twice the consumer's timeout plus 30 s, as stacks/cluster-stack.ts computes them. */
export const VISIBILITY_SECONDS = { events: 270, interruption: 270, termination: 150 } as const;

export interface Queues {
  events: MemoryQueue;
  eventsDlq: MemoryQueue;
  interruption: MemoryQueue;
  interruptionDlq: MemoryQueue;
  termination: MemoryQueue;
  terminationDlq: MemoryQueue;
}

export function createQueues(clock: VirtualClock): Queues {
  const eventsDlq = new MemoryQueue({ name: 'karpless-events-dlq.fifo', clock });
  const interruptionDlq = new MemoryQueue({ name: 'karpless-interruption-dlq', clock });
  const terminationDlq = new MemoryQueue({ name: 'karpless-termination-dlq', clock });
  return {
    events: new MemoryQueue({
      name: 'karpless-events.fifo',
      clock,
      contentBasedDeduplication: true,
      visibilityTimeoutSeconds: VISIBILITY_SECONDS.events,
      redrive: { deadLetterQueue: eventsDlq, maxReceiveCount: MAX_RECEIVE.events },
    }),
    eventsDlq,
    interruption: new MemoryQueue({
      name: 'karpless-interruption',
      clock,
      visibilityTimeoutSeconds: VISIBILITY_SECONDS.interruption,
      redrive: { deadLetterQueue: interruptionDlq, maxReceiveCount: MAX_RECEIVE.interruption },
    }),
    interruptionDlq,
    termination: new MemoryQueue({
      name: 'karpless-termination',
      clock,
      visibilityTimeoutSeconds: VISIBILITY_SECONDS.termination,
      redrive: { deadLetterQueue: terminationDlq, maxReceiveCount: MAX_RECEIVE.termination },
    }),
    terminationDlq,
  };
}
