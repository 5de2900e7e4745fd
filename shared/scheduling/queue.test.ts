import { describe, expect, it } from 'vitest';
import { pod } from '../../testkit/builders';
import type { Pod } from '../api/kube';
import { type PodBase, type PodShape, PodShapes } from './podshape';
import { type Bucket, inTurnOrder, type QueuedPod, WaitingQueue } from './queue';
import { ResourceIndex } from './resources';
import { Topology } from './topology';
import { VolumeIndex } from './volumes';

/** Bases with only what the turn order reads: their id (dense, from 0, as PodShapes numbers them) and request vector
 * (cpu, memory). */
let nextBaseId = 0;
const base = (cpu: number, memory: number) =>
  ({ baseId: nextBaseId++, requests: Float64Array.of(cpu, memory) }) as unknown as PodBase;
const queued = (bases: PodBase[]): QueuedPod[] =>
  bases.map((b, order) => ({
    pod: { metadata: { name: `p${order}` } } as Pod,
    base: b,
    order,
    done: false,
    below: undefined,
  }));

describe('inTurnOrder', () => {
  it('puts larger cpu first, then larger memory, and keeps input order among equal requests', () => {
    const small = base(100, 512);
    const big = base(2000, 256);
    const bigMem = base(2000, 4096);
    // A second base with the same requests as `small` (other labels): its pods interleave with small's by input order.
    const smallToo = base(100, 512);
    const q = queued([small, big, smallToo, bigMem, small, big, smallToo]);
    const order = inTurnOrder(q).map((e) => e.order);
    expect(order).toEqual([3, 1, 5, 0, 2, 4, 6]);
  });

  it('agrees with a comparison sort on many bases', () => {
    const sizes = [0, 100, 250, 1000];
    const bases = sizes.flatMap((c) => sizes.map((m) => base(c, m)));
    const q = queued(Array.from({ length: 200 }, (_, i) => bases[(i * 7) % bases.length] as PodBase));
    const expected = [...q].sort(
      (a, b) =>
        (b.base.requests[0] as number) - (a.base.requests[0] as number) ||
        (b.base.requests[1] as number) - (a.base.requests[1] as number) ||
        a.order - b.order,
    );
    expect(inTurnOrder(q).map((e) => e.order)).toEqual(expected.map((e) => e.order));
  });
});

describe('WaitingQueue.nextMember', () => {
  function queueOf(pods: Pod[]): { waiting: WaitingQueue; queued: QueuedPod[] } {
    const resources = new ResourceIndex();
    const s = new PodShapes(resources, new Topology(new Map(), { of: () => [] }), new VolumeIndex(), []);
    const q = pods.map((p, order) => ({ pod: p, base: s.baseOf(p), order, done: false, below: undefined }));
    s.finalizeVectors();
    const waiting = new WaitingQueue();
    for (const e of q) waiting.enqueue(e, e.base.first as PodShape);
    return { waiting, queued: q };
  }

  it('offers the latest-queued pod not yet processed, group by group, then nothing', () => {
    // Two bases of one bucket (same requests, other labels): each base is a group of its own.
    const { waiting, queued } = queueOf([
      pod({ name: 'a1', labels: { app: 'a' }, cpu: '1' }),
      pod({ name: 'a2', labels: { app: 'a' }, cpu: '1' }),
      pod({ name: 'b1', labels: { app: 'b' }, cpu: '1' }),
      pod({ name: 'a3', labels: { app: 'a' }, cpu: '1' }),
    ]);
    const bucket = waiting.bucketOf((queued[0] as QueuedPod).base.baseId) as Bucket;
    expect(waiting.bucketOf((queued[2] as QueuedPod).base.baseId)).toBe(bucket);
    const seen: string[] = [];
    for (let next = waiting.nextMember(bucket); next; next = waiting.nextMember(bucket)) {
      seen.push(next.q.pod.metadata.name);
      waiting.consume(next.q);
    }
    expect(seen).toEqual(['b1', 'a3', 'a2', 'a1']);
    expect(waiting.size).toBe(0);
  });

  it('passes over pods already taken on their turn', () => {
    const { waiting, queued } = queueOf(['p1', 'p2', 'p3'].map((name) => pod({ name, cpu: '1' })));
    waiting.consume(queued[2] as QueuedPod);
    waiting.consume(queued[0] as QueuedPod);
    const bucket = waiting.bucketOf((queued[0] as QueuedPod).base.baseId) as Bucket;
    expect(waiting.nextMember(bucket)?.q.pod.metadata.name).toBe('p2');
    waiting.consume(queued[1] as QueuedPod);
    expect(waiting.nextMember(bucket)).toBeUndefined();
  });
});
