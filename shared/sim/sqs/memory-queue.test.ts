import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../virtual-clock';
import { DEDUPLICATION_WINDOW_MS, MemoryQueue } from './memory-queue';

const setup = (o: { dlq?: boolean; visibility?: number; maxReceiveCount?: number; fifo?: boolean } = {}) => {
  const clock = new VirtualClock('2026-01-01T00:00:00Z');
  const fifo = o.fifo ?? true;
  const dlq = o.dlq ? new MemoryQueue({ name: fifo ? 'dlq.fifo' : 'dlq', clock }) : undefined;
  const queue = new MemoryQueue({
    name: fifo ? 'events.fifo' : 'events',
    clock,
    visibilityTimeoutSeconds: o.visibility ?? 30,
    ...(dlq ? { redrive: { deadLetterQueue: dlq, maxReceiveCount: o.maxReceiveCount ?? 3 } } : {}),
  });
  return { clock, queue, dlq };
};

describe('MemoryQueue (FIFO)', () => {
  it('keeps one batch in flight per message group, in order, while other groups proceed', () => {
    const { queue } = setup();
    queue.send({ body: 'a1', groupId: 'a', deduplicationId: '1' });
    queue.send({ body: 'b1', groupId: 'b', deduplicationId: '2' });
    queue.send({ body: 'a2', groupId: 'a', deduplicationId: '3' });
    expect(queue.receive(1).map((m) => m.body)).toEqual(['a1']);
    // a is in flight: only b is available.
    expect(queue.receive(10).map((m) => m.body)).toEqual(['b1']);
    expect(queue.receive(10)).toEqual([]);
  });

  it('returns several messages of one group in order within one receive', () => {
    const { queue } = setup();
    for (const [i, body] of ['x', 'y', 'z'].entries()) queue.send({ body, groupId: 'g', deduplicationId: `${i}` });
    expect(queue.receive(10).map((m) => m.body)).toEqual(['x', 'y', 'z']);
  });

  it('drops a duplicate deduplication id within five minutes and accepts it after', () => {
    const { queue, clock } = setup();
    expect(queue.send({ body: 'one', groupId: 'g', deduplicationId: 'd' }).accepted).toBe(true);
    expect(queue.send({ body: 'one', groupId: 'g', deduplicationId: 'd' }).accepted).toBe(false);
    expect(queue.size).toBe(1);
    clock.advance(DEDUPLICATION_WINDOW_MS);
    expect(queue.send({ body: 'one', groupId: 'g', deduplicationId: 'd' }).accepted).toBe(true);
    expect(queue.size).toBe(2);
  });

  it('rejects a FIFO send without a group, without a dedup id, or with a per-message delay', () => {
    const { queue } = setup();
    expect(() => queue.send({ body: 'x', deduplicationId: '1' })).toThrow(/MessageGroupId/);
    expect(() => queue.send({ body: 'x', groupId: 'g' })).toThrow(/MessageDeduplicationId/);
    expect(() => queue.send({ body: 'x', groupId: 'g', deduplicationId: '1', delaySeconds: 5 })).toThrow(
      /DelaySeconds/,
    );
  });

  it('redelivers after the visibility timeout with a higher receive count, ahead of later messages', () => {
    const { queue, clock } = setup({ visibility: 10 });
    queue.send({ body: 'first', groupId: 'g', deduplicationId: '1' });
    queue.send({ body: 'second', groupId: 'g', deduplicationId: '2' });
    const [m] = queue.receive(1);
    expect(m?.receiveCount).toBe(1);
    clock.advance(9_999);
    expect(queue.receive(10)).toEqual([]);
    clock.advance(1);
    const again = queue.receive(10);
    expect(again.map((x) => [x.body, x.receiveCount])).toEqual([
      ['first', 2],
      ['second', 1],
    ]);
    // The first receive's handle is stale now.
    expect(queue.delete(m?.receiptHandle ?? '')).toBe(false);
    expect(queue.delete(again[0]?.receiptHandle ?? '')).toBe(true);
  });

  it('moves a message to the DLQ once received maxReceiveCount times', () => {
    const { queue, dlq, clock } = setup({ dlq: true, visibility: 1, maxReceiveCount: 2 });
    queue.send({ body: 'poison', groupId: 'g', deduplicationId: '1' });
    queue.send({ body: 'fine', groupId: 'g', deduplicationId: '2' });
    expect(queue.receive(1)[0]?.body).toBe('poison');
    clock.advance(1_000);
    expect(queue.receive(1)[0]?.receiveCount).toBe(2);
    clock.advance(1_000);
    expect(queue.receive(1).map((m) => m.body)).toEqual(['fine']);
    expect(dlq?.peek().map((m) => m.body)).toEqual(['poison']);
  });

  it('needs a dead-letter queue of the same type', () => {
    const clock = new VirtualClock();
    const dlq = new MemoryQueue({ name: 'dlq', clock });
    expect(
      () => new MemoryQueue({ name: 'q.fifo', clock, redrive: { deadLetterQueue: dlq, maxReceiveCount: 1 } }),
    ).toThrow(/same type/);
  });
});

describe('MemoryQueue (standard)', () => {
  it('honours DelaySeconds per message and reports depth', () => {
    const { queue, clock } = setup({ fifo: false });
    queue.send({ body: 'now' });
    queue.send({ body: 'later', delaySeconds: 5 });
    expect(queue.depth()).toEqual({ visible: 1, inFlight: 0, delayed: 1 });
    expect(queue.receive(10).map((m) => m.body)).toEqual(['now']);
    expect(queue.depth()).toEqual({ visible: 0, inFlight: 1, delayed: 1 });
    expect(queue.nextVisibleAt()).toBe(clock.now() + 5_000);
    clock.advance(5_000);
    expect(queue.receive(10).map((m) => m.body)).toEqual(['later']);
  });

  it('has no deduplication and rejects a delay beyond 15 minutes', () => {
    const { queue } = setup({ fifo: false });
    queue.send({ body: 'same' });
    queue.send({ body: 'same' });
    expect(queue.receive(10)).toHaveLength(2);
    expect(() => queue.send({ body: 'x', delaySeconds: 901 })).toThrow(/DelaySeconds/);
  });

  it('makes a message visible again at once with a zero visibility change', () => {
    const { queue } = setup({ fifo: false });
    queue.send({ body: 'x' });
    const [m] = queue.receive(1);
    expect(queue.changeVisibility(m?.receiptHandle ?? '', 0)).toBe(true);
    expect(queue.receive(1)[0]?.receiveCount).toBe(2);
  });
});
