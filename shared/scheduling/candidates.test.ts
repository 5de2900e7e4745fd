import { describe, expect, it } from 'vitest';
import { CandidateOrder, roundedScore } from './candidates';

/** What chooseTarget did before: round every score, then a stable sort by (rounded score, worth descending). */
function sortedOrder(items: readonly { raw: number; worth: number }[]): number[] {
  return items
    .map((it, i) => ({ i, bound: roundedScore(it.raw), worth: it.worth }))
    .sort((a, b) => a.bound - b.bound || b.worth - a.worth)
    .map((e) => e.i);
}

function drained(items: readonly { raw: number; worth: number }[]): { order: number[]; bounds: number[] } {
  const order = new CandidateOrder<number>(items.length);
  items.forEach((it, i) => {
    order.add(i, it.raw, it.worth, 10 * i);
  });
  const out: number[] = [];
  const bounds: number[] = [];
  for (let c = order.next(); c >= 0; c = order.next()) {
    out.push(order.option(c));
    bounds.push(order.bound);
    expect(order.price(c)).toBe(10 * order.option(c));
  }
  return { order: out, bounds };
}

/** A deterministic generator, so a failure names its seed. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('CandidateOrder', () => {
  it('hands out candidates in the order of the rounded-score sort, ties by worth, then by insertion', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = lcg(seed);
      const n = 1 + Math.floor(rand() * 80);
      const items = Array.from({ length: n }, () => {
        // Scores from a few levels, each nudged by float noise (rounds to the same score) or by a real difference;
        // worth from a few values so worth ties occur too; some candidates have no worth (score Infinity).
        const level = [0.0123, 0.0456, 0.1, 1 / 3][Math.floor(rand() * 4)] as number;
        const noise = rand() < 0.5 ? level * (rand() - 0.5) * 1e-12 : level * (rand() - 0.5) * 1e-3;
        const raw = rand() < 0.1 ? Number.POSITIVE_INFINITY : level + noise;
        const worth = [1, 2, 2.5, 4][Math.floor(rand() * 4)] as number;
        return { raw, worth };
      });
      const { order, bounds } = drained(items);
      expect(order, `seed ${seed}`).toEqual(sortedOrder(items));
      expect(bounds, `seed ${seed}`).toEqual(order.map((i) => roundedScore((items[i] as { raw: number }).raw)));
    }
  });

  it('reports none when empty, and keeps equal raw scores in insertion order at equal worth', () => {
    expect(new CandidateOrder<number>(0).next()).toBe(-1);
    const { order } = drained([
      { raw: 0.5, worth: 1 },
      { raw: 0.25, worth: 1 },
      { raw: 0.5, worth: 1 },
      { raw: 0.25, worth: 3 },
    ]);
    expect(order).toEqual([3, 1, 0, 2]);
  });
});
