// The pattern program's JavaScript steps (the dynamic program, the rounding of the relaxation) stop on the solve's
// deadline; HiGHS stops on the seconds it is given (docs/performance.md, "A deadline that holds").
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLpSolver } from '../lp';
import { solvePatterns } from './mip';
import type { Kind, NodeOption, Pattern } from './patterns';

beforeAll(async () => {
  await loadLpSolver();
});

// Eight kinds of 20 pods: 21^8 states, far past the dynamic program's work limit, so the relaxation runs.
const kinds: Kind[] = Array.from({ length: 8 }, () => ({ requests: new Float64Array([1]), count: 20 }));
const options: NodeOption[] = [
  { alloc: new Float64Array([4]), capacity: new Float64Array([4]), price: 1, kinds: kinds.map((_, k) => k) },
];
const patterns: Pattern[] = kinds.map((_, k) => ({
  option: 0,
  price: 1,
  counts: Int32Array.from(kinds, (_, i) => (i === k ? 3 : i === (k + 1) % kinds.length ? 1 : 0)),
}));

describe('the pattern program under the solve deadline', () => {
  it('packs when the deadline has not passed', () => {
    const r = solvePatterns(
      patterns,
      options,
      kinds,
      [],
      performance.now() + 5000,
      Number.POSITIVE_INFINITY,
      () => false,
    );
    expect(r?.copies).toBeDefined();
    expect(r?.cost).toBeGreaterThanOrEqual(40);
  });

  it('returns nothing, without starting HiGHS, once the solve deadline has passed', () => {
    let reads = 0;
    const r = solvePatterns(patterns, options, kinds, [], performance.now() + 5000, Number.POSITIVE_INFINITY, () => {
      reads++;
      return true;
    });
    expect(r).toBeUndefined();
    expect(reads).toBe(1);
  });
});
