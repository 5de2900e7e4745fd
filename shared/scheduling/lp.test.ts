import { beforeAll, describe, expect, it } from 'vitest';
import { HIGHS_WASM_ENV, loadLpSolver, locateHighsFile, solveCoveringLp } from './lp';

beforeAll(loadLpSolver);

describe('solveCoveringLp', () => {
  it('finds the optimum and the resource duals', () => {
    // Two resources; a cpu-rich and a memory-rich column.
    const r = solveCoveringLp(
      [10, 15],
      [
        { price: 1, supply: [2, 1] },
        { price: 2, supply: [1, 3] },
      ],
    );
    expect(r.cost).toBeCloseTo(11, 6);
    expect(r.duals[0]).toBeCloseTo(0.2, 6);
    expect(r.duals[1]).toBeCloseTo(0.6, 6);
    expect(r.counts[0]).toBeCloseTo(3, 6);
  });

  it('ignores dominated columns and zero rows', () => {
    const r = solveCoveringLp(
      [4, 0],
      [
        { price: 1, supply: [2, 2] },
        { price: 3, supply: [2, 2] },
      ],
    );
    expect(r.cost).toBeCloseTo(2, 6);
    expect(r.counts[1]).toBe(0);
  });

  it('uses a bounded column up to its bound, and it dominates nothing', () => {
    // A near-free column there are only 3 of (a reservation's room) beats the other per dollar on every row, yet
    // the other is still needed for the remaining 7.
    const r = solveCoveringLp(
      [10],
      [
        { price: 0.001, supply: [1], max: 3 },
        { price: 1, supply: [1] },
      ],
    );
    expect(r.counts[0]).toBeCloseTo(3, 6);
    expect(r.counts[1]).toBeCloseTo(7, 6);
    expect(r.cost).toBeCloseTo(7.003, 6);
  });

  it('is infeasible when nothing supplies a demanded row', () => {
    expect(solveCoveringLp([1, 1], [{ price: 1, supply: [1, 0] }]).cost).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('locateHighsFile', () => {
  it('finds highs.wasm beside the loader, or where KARPLESS_HIGHS_WASM points', async () => {
    const { createRequire } = await import('node:module');
    const { dirname } = await import('node:path');
    const dir = `${dirname(createRequire(import.meta.url).resolve('highs'))}/`;
    expect(locateHighsFile('highs.wasm', dir)).toBe(`${dir}highs.wasm`);
    process.env[HIGHS_WASM_ENV] = `${dir}highs.wasm`;
    try {
      expect(locateHighsFile('highs.wasm', '/elsewhere/')).toBe(`${dir}highs.wasm`);
    } finally {
      delete process.env[HIGHS_WASM_ENV];
    }
  });

  it('names the path it looked at when the file is missing', () => {
    expect(() => locateHighsFile('highs.wasm', '/no/such/dir/')).toThrow(
      'highs.wasm not found at /no/such/dir/highs.wasm: ship it beside the bundle or set KARPLESS_HIGHS_WASM',
    );
  });
});
