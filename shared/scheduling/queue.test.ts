import { describe, expect, it } from 'vitest';
import type { Pod } from '../api/kube';
import type { PodBase } from './podshape';
import { inTurnOrder, type QueuedPod } from './queue';

/** Bases with only what the turn order reads: their id (dense, from 0, as PodShapes numbers them) and request vector
 * (cpu, memory). */
let nextBaseId = 0;
const base = (cpu: number, memory: number) =>
  ({ baseId: nextBaseId++, requests: Float64Array.of(cpu, memory) }) as unknown as PodBase;
const queued = (bases: PodBase[]): QueuedPod[] =>
  bases.map((b, order) => ({ pod: { metadata: { name: `p${order}` } } as Pod, base: b, order, done: false }));

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
