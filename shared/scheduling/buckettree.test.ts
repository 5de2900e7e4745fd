import { describe, expect, it } from 'vitest';
import { createRng } from '../sim/rng';
import { type BucketPick, BucketTree, dotProductScore, type TreeBucket } from './buckettree';

type Item = TreeBucket & { name: string };

/** The highest score, the earliest bucket on a tie: what the fill wants (fill.ts). */
class Best implements BucketPick<Item> {
  score = -1;
  best: Item | undefined;
  offers = 0;
  offer(b: Item, score: number): void {
    this.offers++;
    if (score > this.score || (score === this.score && this.best !== undefined && b.ordinal < this.best.ordinal)) {
      this.score = score;
      this.best = b;
    }
  }
}

/** A scan of every bucket in order, the reference the tree must agree with. */
function scan(items: readonly Item[], used: Float64Array, alloc: Float64Array): Item | undefined {
  let best: Item | undefined;
  let bestScore = -1;
  for (const b of items) {
    if (b.remaining <= 0) continue;
    const s = dotProductScore(b.shape.requests, used, alloc);
    if (s > bestScore) {
      bestScore = s;
      best = b;
    }
  }
  return best;
}

function items(n: number, seed: number, steps = 0): Item[] {
  const rng = createRng(seed);
  const draw = (lo: number, hi: number): number => {
    const v = lo + rng.next() * (hi - lo);
    return steps > 0 ? lo + Math.round(((v - lo) / (hi - lo)) * steps) * ((hi - lo) / steps) : Math.round(v);
  };
  return Array.from({ length: n }, (_, i) => ({
    name: `b${i}`,
    shape: { requests: Float64Array.of(draw(50, 2000), draw(64, 4096) * 2 ** 20, 1) },
    remaining: 1 + Math.floor(rng.next() * 3),
    ordinal: i,
    leaf: -1,
  }));
}

describe('the bucket tree', () => {
  it('finds the bucket a scan of every bucket would pick, as a claim fills and buckets empty', () => {
    for (const [seed, steps] of [
      [1, 0],
      [2, 0],
      [3, 4],
    ] as const) {
      const all = items(3000, seed, steps);
      const tree = new BucketTree(all, 3);
      const alloc = Float64Array.of(63_770, 250_000 * 2 ** 20, 110);
      const used = Float64Array.of(0, 0, 0);
      let placed = 0;
      for (;;) {
        const pick = new Best();
        tree.search(used, alloc, pick);
        const expected = scan(all, used, alloc);
        expect(pick.best?.name).toBe(expected?.name);
        if (!pick.best) break;
        const b = pick.best;
        for (let i = 0; i < 3; i++) used[i] = (used[i] as number) + (b.shape.requests[i] as number);
        b.remaining--;
        if (b.remaining === 0) tree.emptied(b);
        placed++;
      }
      expect(placed).toBeGreaterThan(20);
    }
  });

  it('after a reset, searches the buckets as they were refilled, as a fresh tree would', () => {
    const all = items(2000, 6);
    const tree = new BucketTree(all, 3);
    const alloc = Float64Array.of(15_890, 60_000 * 2 ** 20, 58);
    const rng = createRng(7);
    for (let round = 0; round < 4; round++) {
      // Refill: some buckets empty, others hold pods again; the requests move too (a cell's mean does).
      for (const b of all) {
        b.remaining = rng.next() < 0.3 ? 0 : 1 + Math.floor(rng.next() * 2);
        const r = b.shape.requests;
        r[0] = Math.max(1, (r[0] as number) * (0.9 + 0.2 * rng.next()));
      }
      tree.reset();
      const used = Float64Array.of(0, 0, 0);
      for (;;) {
        const pick = new Best();
        tree.search(used, alloc, pick);
        expect(pick.best?.name).toBe(scan(all, used, alloc)?.name);
        if (!pick.best) break;
        const b = pick.best;
        for (let i = 0; i < 3; i++) used[i] = (used[i] as number) + (b.shape.requests[i] as number);
        b.remaining--;
        if (b.remaining === 0) tree.emptied(b);
      }
      expect(tree.alive).toBe(all.some((b) => b.remaining > 0));
    }
  });

  it('after a refresh of the buckets a fill emptied, searches as a reset tree does', () => {
    // The target search puts back what one candidate's fill took and refreshes only the emptied buckets (cost.ts).
    const all = items(2000, 8);
    const twin = all.map((b) => ({ ...b, shape: { requests: b.shape.requests } }));
    const tree = new BucketTree(all, 3);
    const reference = new BucketTree(twin, 3);
    const start = all.map((b) => b.remaining);
    const refill = (list: Item[]) => {
      for (const b of list) b.remaining = start[b.ordinal] as number;
    };
    /** Fills one claim, each pick emptying its bucket: the picks, each with the offers the search made for it. */
    const fill = (t: BucketTree<Item>, list: Item[], alloc: Float64Array, emptied: Item[] = []): string[] => {
      const used = Float64Array.of(0, 0, 0);
      const picks: string[] = [];
      for (;;) {
        const pick = new Best();
        t.search(used, alloc, pick);
        expect(pick.best?.name).toBe(scan(list, used, alloc)?.name);
        if (!pick.best) return picks;
        const b = pick.best;
        picks.push(`${b.name}/${pick.offers}`);
        for (let i = 0; i < 3; i++) used[i] = (used[i] as number) + (b.shape.requests[i] as number);
        b.remaining = 0;
        t.emptied(b);
        emptied.push(b);
      }
    };
    for (const [cpu, gib] of [
      [63_770, 250_000],
      [15_890, 60_000],
      [7_910, 30_000],
    ] as const) {
      const emptied: Item[] = [];
      fill(tree, all, Float64Array.of(cpu, gib * 2 ** 20, 110), emptied);
      expect(emptied.length).toBeGreaterThan(5);
      refill(emptied);
      for (const b of emptied) tree.refresh(b);
      // The next fill makes the same picks after as many offers as on a tree recounted whole: same boxes and counts.
      const next = Float64Array.of(cpu / 2, (gib / 2) * 2 ** 20, 110);
      const picks = fill(tree, all, next);
      expect(picks.length).toBeGreaterThan(2);
      expect(picks).toEqual(fill(reference, twin, next));
      refill(all);
      refill(twin);
      tree.reset();
      reference.reset();
    }
  });

  it('breaks ties for the earliest bucket', () => {
    const all = items(200, 4).map((b) => ({ ...b, shape: { requests: Float64Array.of(500, 2 ** 30, 1) } }));
    const tree = new BucketTree(all, 3);
    const pick = new Best();
    tree.search(Float64Array.of(0, 0, 0), Float64Array.of(4000, 16 * 2 ** 30, 110), pick);
    expect(pick.best?.name).toBe('b0');
  });

  it('offers nothing once every bucket is empty or too big', () => {
    const all = items(100, 5);
    const tree = new BucketTree(all, 3);
    const tiny = new Best();
    tree.search(Float64Array.of(0, 0, 0), Float64Array.of(40, 2 ** 20, 110), tiny);
    expect(tiny.best).toBeUndefined();
    for (const b of all) {
      b.remaining = 0;
      tree.emptied(b);
    }
    expect(tree.alive).toBe(false);
    const none = new Best();
    tree.search(Float64Array.of(0, 0, 0), Float64Array.of(1e6, 2 ** 40, 1e6), none);
    expect(none.offers).toBe(0);
  });

  it('picks what a scan of every bucket picks, over many random trees, rooms and emptied buckets', () => {
    // A node's bound must never fall below a fitting bucket's score: a bound too tight passes over the best bucket,
    // or the earliest of equals. Random trees of every size, with requests that are zero in some
    // resources, that tie (a few steps per resource), and rooms from roomy to nearly full.
    const rng = createRng(11);
    let searches = 0;
    let offers = 0;
    let fitting = 0;
    for (let trial = 0; trial < 300; trial++) {
      const dims = 2 + Math.floor(rng.next() * 3);
      const n = 1 + Math.floor(rng.next() * (trial % 10 === 0 ? 1500 : 200));
      const steps = rng.next() < 0.4 ? 1 + Math.floor(rng.next() * 4) : 0;
      const draw = (hi: number): number => {
        if (rng.next() < 0.05) return 0;
        const v = rng.next();
        return steps > 0 ? (Math.ceil(v * steps) / steps) * hi : Math.max(1, Math.round(v * hi));
      };
      const scale = [4000, 16 * 2 ** 30, 110, 500].map((v) => v * (0.2 + rng.next()));
      const all: Item[] = Array.from({ length: n }, (_, i) => ({
        name: `b${i}`,
        shape: { requests: Float64Array.from({ length: dims }, (_, d) => draw((scale[d] as number) / 8)) },
        remaining: rng.next() < 0.1 ? 0 : 1 + Math.floor(rng.next() * 2),
        ordinal: i,
        leaf: -1,
      }));
      const tree = new BucketTree(all, dims);
      for (let claim = 0; claim < 3; claim++) {
        const alloc = Float64Array.from({ length: dims }, (_, d) => (scale[d] as number) * (0.3 + 2 * rng.next()));
        const used = Float64Array.from(alloc, (a) => (rng.next() < 0.3 ? a * rng.next() : 0));
        for (;;) {
          const pick = new Best();
          tree.search(used, alloc, pick);
          const expected = scan(all, used, alloc);
          expect(pick.best?.name, `trial ${trial}, claim ${claim}`).toBe(expected?.name);
          searches++;
          offers += pick.offers;
          fitting += all.filter((b) => b.remaining > 0 && dotProductScore(b.shape.requests, used, alloc) >= 0).length;
          if (!pick.best) break;
          const b = pick.best;
          for (let i = 0; i < dims; i++) used[i] = (used[i] as number) + (b.shape.requests[i] as number);
          b.remaining--;
          if (b.remaining === 0) tree.emptied(b);
        }
      }
    }
    expect(searches).toBeGreaterThan(3000);
    // And it does prune: most fitting buckets are never offered.
    expect(offers).toBeLessThan(fitting / 4);
  });
});
