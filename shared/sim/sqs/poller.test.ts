import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../virtual-clock';
import { MemoryQueue } from './memory-queue';
import { QueuePoller } from './poller';
import { MemoryWorkQueue } from './work-queue';

const fifo = () => {
  const clock = new VirtualClock('2026-01-01T00:00:00Z');
  const dlq = new MemoryQueue({ name: 'events-dlq.fifo', clock });
  const queue = new MemoryQueue({
    name: 'events.fifo',
    clock,
    visibilityTimeoutSeconds: 10,
    redrive: { deadLetterQueue: dlq, maxReceiveCount: 2 },
  });
  return { clock, queue, dlq };
};

describe('QueuePoller', () => {
  it('hands the handler SQS records with FIFO attributes and deletes what succeeded', async () => {
    const { queue } = fifo();
    const work = new MemoryWorkQueue(queue);
    await work.send({ body: '{"a":1}', groupId: 'demo', deduplicationId: 'd1', delaySeconds: 9 });
    let seen: SQSEvent | undefined;
    const poller = new QueuePoller(queue, async (event) => {
      seen = event;
      return { batchItemFailures: [] };
    });
    const r = await poller.pollOnce();
    expect(r).toMatchObject({ received: 1, deleted: 1, failed: [] });
    const record = seen?.Records[0];
    expect(record).toMatchObject({
      body: '{"a":1}',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-west-2:111122223333:events.fifo',
      md5OfBody: 'bb6cb5c68df4652941caf652a366f2d8',
      attributes: { ApproximateReceiveCount: '1', MessageGroupId: 'demo', MessageDeduplicationId: 'd1' },
    });
    expect(queue.size).toBe(0);
  });

  it('leaves batchItemFailures in flight, redelivers them, and redrives a poison message to the DLQ', async () => {
    const { queue, dlq, clock } = fifo();
    const work = new MemoryWorkQueue(queue);
    await work.send({ body: 'poison', groupId: 'g1', deduplicationId: 'p' });
    await work.send({ body: 'ok', groupId: 'g2', deduplicationId: 'o' });
    const handled: string[] = [];
    const poller = new QueuePoller(queue, async (event) => {
      const failures = [];
      for (const r of event.Records) {
        if (r.body === 'poison') failures.push({ itemIdentifier: r.messageId });
        else handled.push(r.body);
      }
      return { batchItemFailures: failures };
    });
    expect((await poller.pollOnce()).failed).toHaveLength(1);
    expect(handled).toEqual(['ok']);
    expect(await poller.pollOnce()).toMatchObject({ received: 0 });
    clock.advance(10_000);
    expect((await poller.pollOnce()).received).toBe(1);
    clock.advance(10_000);
    expect((await poller.pollOnce()).received).toBe(0);
    expect(dlq.peek().map((m) => m.body)).toEqual(['poison']);
    expect(queue.size).toBe(0);
  });

  it('treats a thrown handler as a failed invocation: the whole batch returns after the timeout', async () => {
    const { queue, clock } = fifo();
    queue.send({ body: 'a', groupId: 'g', deduplicationId: '1' });
    queue.send({ body: 'b', groupId: 'g', deduplicationId: '2' });
    let crash = true;
    const poller = new QueuePoller(queue, async () => {
      if (crash) throw new Error('Runtime.ExitError');
    });
    const r = await poller.pollOnce();
    expect(r.failed).toHaveLength(2);
    expect(r.error).toBeInstanceOf(Error);
    crash = false;
    clock.advance(10_000);
    const again = await poller.pollOnce();
    expect(again).toMatchObject({ received: 2, deleted: 2 });
  });

  it('sends a per-message delay only to a standard queue', async () => {
    const clock = new VirtualClock();
    const standard = new MemoryQueue({ name: 'termination', clock });
    await new MemoryWorkQueue(standard).send({ body: 'x', delaySeconds: 5, groupId: 'ignored' });
    expect(standard.depth()).toEqual({ visible: 0, inFlight: 0, delayed: 1 });
    expect(standard.peek()[0]?.groupId).toBeUndefined();
  });
});
