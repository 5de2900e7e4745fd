// The WorkQueue port on an in-memory queue, sending exactly what its twin shared/aws/sqs/work-queue.ts sends
// (deliveredMessage in shared/ports.ts): FIFO queues get the group and deduplication id and no per-message delay;
// standard queues the reverse.
import { deliveredMessage, type QueueMessage, type WorkQueue } from '../../ports';
import type { MemoryQueue } from './memory-queue';

export class MemoryWorkQueue implements WorkQueue {
  constructor(private readonly queue: MemoryQueue) {}

  async send(message: QueueMessage): Promise<void> {
    this.queue.send(deliveredMessage(message, this.queue.fifo));
  }
}
