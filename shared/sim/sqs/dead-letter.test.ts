import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../virtual-clock';
import { memoryDeadLetter } from './dead-letter';
import { MemoryQueue } from './memory-queue';
import { toRecord } from './poller';

describe('memoryDeadLetter', () => {
  it('puts a poison record in a FIFO DLQ at once, in its group, with the reason and original id', async () => {
    const clock = new VirtualClock('2026-11-21T21:00:00Z');
    const dlq = new MemoryQueue({ name: 'events-dlq.fifo', clock });
    const queue = new MemoryQueue({
      name: 'events.fifo',
      clock,
      redrive: { deadLetterQueue: dlq, maxReceiveCount: 5 },
    });
    queue.send({ body: 'not json', groupId: 'demo', deduplicationId: 'p1' });
    const [received] = queue.receive(1);
    const record = toRecord(received!, queue);
    await memoryDeadLetter(dlq)(record, 'body: not JSON');
    // A retried send of the same record is deduplicated on the original message id.
    await memoryDeadLetter(dlq)(record, 'body: not JSON');
    expect(dlq.peek()).toMatchObject([
      {
        body: 'not json',
        groupId: 'demo',
        deduplicationId: record.messageId,
        attributes: {
          'karpless-source-queue': 'events.fifo',
          'karpless-dead-letter-reason': 'body: not JSON',
          'karpless-original-message-id': record.messageId,
        },
      },
    ]);
    expect(dlq.receive(10).map((m) => m.body)).toEqual(['not json']);
  });

  it('sends to a standard DLQ without group or deduplication id', async () => {
    const clock = new VirtualClock('2026-11-21T21:00:00Z');
    const dlq = new MemoryQueue({ name: 'interruption-dlq', clock });
    const queue = new MemoryQueue({ name: 'interruption', clock });
    queue.send({ body: '{}' });
    const [received] = queue.receive(1);
    await memoryDeadLetter(dlq)(toRecord(received!, queue), 'detail-type: required');
    const [held] = dlq.peek();
    expect(held?.groupId).toBeUndefined();
    expect(held?.attributes?.['karpless-dead-letter-reason']).toBe('detail-type: required');
  });
});
