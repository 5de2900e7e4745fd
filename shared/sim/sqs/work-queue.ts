// The WorkQueue port on an in-memory queue, sending exactly what functions/provisioner/wiring.ts's SqsWorkQueue
// sends: FIFO queues get the group and deduplication id and no per-message delay; standard queues the reverse.
import type { QueueMessage, WorkQueue } from '../../ports';
import type { MemoryQueue } from './memory-queue';

export class MemoryWorkQueue implements WorkQueue {
  constructor(private readonly queue: MemoryQueue) {}

  async send(message: QueueMessage): Promise<void> {
    if (this.queue.fifo) {
      this.queue.send({
        body: message.body,
        ...(message.groupId !== undefined ? { groupId: message.groupId } : {}),
        ...(message.deduplicationId !== undefined ? { deduplicationId: message.deduplicationId } : {}),
      });
      return;
    }
    this.queue.send({
      body: message.body,
      ...(message.delaySeconds ? { delaySeconds: message.delaySeconds } : {}),
    });
  }
}
