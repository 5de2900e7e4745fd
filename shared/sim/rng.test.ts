import { describe, expect, it } from 'vitest';
import { createRng } from './rng';

describe('createRng', () => {
  it('repeats the same stream for the same seed', () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(xs);
  });

  it('gives different streams for different seeds', () => {
    expect(createRng(1).next()).not.toEqual(createRng(2).next());
  });

  it('draws integers in range and roughly uniformly', () => {
    const rng = createRng(7);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[rng.int(4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
    expect(counts.reduce((s, c) => s + c, 0)).toBe(4000);
  });

  it('makes hex strings of the asked length and picks from lists', () => {
    const rng = createRng(3);
    expect(rng.hex(17)).toMatch(/^[0-9a-f]{17}$/);
    expect(['a', 'b']).toContain(rng.pick(['a', 'b']));
    expect(() => rng.pick([])).toThrow(RangeError);
  });
});
