import { describe, expect, it } from 'vitest';
import { rng } from '../../testkit/workloads';
import { FreeIndex } from './free-index';

/** What the index stands for: the first node in order, open, with room on every resource, that `accept` takes. */
function scan(
  order: number[],
  free: Float64Array[],
  open: boolean[],
  need: Float64Array,
  accept: (n: number) => boolean,
): number {
  for (const n of order) {
    if (!open[n]) continue;
    const f = free[n] as Float64Array;
    if (need.every((v, d) => v <= (f[d] as number) + 1e-9) && accept(n)) return n;
  }
  return -1;
}

describe('FreeIndex', () => {
  it('finds the same node as a first-fit scan while nodes fill, empty and close', () => {
    const r = rng(3);
    const nodes = 37;
    const dims = 3;
    const free = Array.from({ length: nodes }, () => Float64Array.from({ length: dims }, () => Math.floor(r() * 10)));
    const order = Array.from({ length: nodes }, (_, i) => i).sort(() => r() - 0.5);
    const open = free.map(() => true);
    const index = new FreeIndex(order, free, dims);
    for (let step = 0; step < 2000; step++) {
      const need = Float64Array.from({ length: dims }, () => Math.floor(r() * 6));
      const banned = Math.floor(r() * nodes);
      const accept = (n: number) => n !== banned;
      const found = index.first(need, accept);
      expect(found).toBe(scan(order, free, open, need, accept));
      if (found >= 0) {
        const f = free[found] as Float64Array;
        for (let d = 0; d < dims; d++) f[d] = (f[d] as number) - (need[d] as number);
        index.update(found);
      }
      const other = Math.floor(r() * nodes);
      if (r() < 0.3) {
        const f = free[other] as Float64Array;
        for (let d = 0; d < dims; d++) f[d] = (f[d] as number) + Math.floor(r() * 4);
        if (open[other]) index.update(other);
      }
      if (r() < 0.02) {
        open[other] = false;
        index.remove(other);
      }
    }
  });

  it('finds nothing when no open node has room', () => {
    const free = [Float64Array.of(2, 2), Float64Array.of(5, 1)];
    const index = new FreeIndex([0, 1], free, 2);
    expect(index.first(Float64Array.of(3, 2), () => true)).toBe(-1);
    expect(index.first(Float64Array.of(3, 1), () => true)).toBe(1);
    index.remove(1);
    expect(index.first(Float64Array.of(3, 1), () => true)).toBe(-1);
  });
});
