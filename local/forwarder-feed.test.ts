import { describe, expect, it } from 'vitest';
import { SimCluster, VirtualClock } from '../shared/sim';
import { MemoryQueue } from '../shared/sim/sqs';
import { makePod, testNodeClass, testNodePool } from '../testkit/bed';
import { ForwarderFeed } from './forwarder-feed';

const setup = () => {
  const clock = new VirtualClock('2026-01-01T00:00:00Z');
  const sim = new SimCluster({ clock }).load([testNodePool(), testNodeClass()]);
  const queue = new MemoryQueue({ name: 'events.fifo', clock });
  const feed = new ForwarderFeed({ cluster: 'demo', sim, clock, queue });
  const kinds = () => queue.peek().map((m) => JSON.parse(m.body) as { kind: string; refs: { name: string }[] });
  return { clock, sim, queue, feed, kinds };
};

describe('ForwarderFeed', () => {
  it('marks pending pods Unschedulable and sends them after the idle window, one FIFO group', async () => {
    const { clock, sim, feed, queue, kinds } = setup();
    sim.addPod(makePod('a', { owner: 'none' }));
    const pod = sim.getPod('default/a');
    if (pod) pod.status = { phase: 'Pending' };
    await feed.start();
    expect(sim.getPod('default/a')?.status?.conditions).toEqual([
      { type: 'PodScheduled', status: 'False', reason: 'Unschedulable' },
    ]);
    expect(feed.flushIfDue()).toEqual([]);
    clock.advance(1_000);
    expect(feed.flushIfDue().map((m) => m.kind)).toEqual(['NodePoolChanged', 'PodsPending']);
    expect(
      kinds()
        .at(-1)
        ?.refs.map((r) => r.name),
    ).toEqual(['a']);
    expect(queue.peek().every((m) => m.groupId === 'demo')).toBe(true);
  });

  it('sends a node registration and its readiness as two messages SQS does not deduplicate', async () => {
    const { clock, sim, feed, queue } = setup();
    await feed.start();
    clock.advance(1_000);
    feed.flushIfDue();
    const before = queue.size;
    sim.addNode({ kind: 'Node', metadata: { name: 'n1' }, spec: {}, status: { conditions: [] } });
    // SimCluster emits changes for registrations it drives; emulate the two watch events directly.
    (sim as unknown as { emit(c: unknown): void }).emit({ type: 'node-registered', node: 'n1' });
    clock.advance(1_000);
    feed.flushIfDue();
    const node = sim.getNode('n1');
    if (node?.status) node.status.conditions = [{ type: 'Ready', status: 'True' }];
    (sim as unknown as { emit(c: unknown): void }).emit({ type: 'node-ready', node: 'n1' });
    clock.advance(1_000);
    feed.flushIfDue();
    expect(queue.size - before).toBe(2);
  });

  it('sends a NodePool applied while running as stored, with the UID the server stamped', async () => {
    const { clock, sim, feed, queue } = setup();
    await feed.start();
    clock.advance(1_000);
    feed.flushIfDue();
    const before = queue.size;
    feed.upsert(testNodePool('other'));
    clock.advance(1_000);
    feed.flushIfDue();
    const uid = (await sim.listNodePools()).find((p) => p.metadata.name === 'other')?.metadata.uid;
    expect(uid).toBeTruthy();
    const sent = queue
      .peek()
      .slice(before)
      .map((m) => JSON.parse(m.body) as { refs: { name: string; uid?: string }[] });
    expect(sent.flatMap((m) => m.refs).find((r) => r.name === 'other')?.uid).toBe(uid);
  });
});
