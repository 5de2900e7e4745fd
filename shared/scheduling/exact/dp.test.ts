// The packing's dynamic program stops on the solve's deadline: within its work limit it can still take a few hundred
// milliseconds when there are many kinds (docs/performance.md, "A deadline that holds"). The clock here is a counter,
// so where the program stops is deterministic and not timed.
import { describe, expect, it } from 'vitest';
import { coverByDp } from './dp';
import type { Kind, Pattern } from './patterns';

const kind = (count: number): Kind => ({ requests: new Float64Array(2), count });
const pattern = (price: number, counts: number[]): Pattern => ({ option: 0, price, counts: Int32Array.from(counts) });

// Twelve kinds of two pods: 3^12 = 531,441 states, three patterns; about 1.6 M steps, within the work limit.
const kinds = Array.from({ length: 12 }, () => kind(2));
const patterns = [
  pattern(
    1,
    Array.from({ length: 12 }, (_, k) => (k % 2 === 0 ? 2 : 0)),
  ),
  pattern(
    1,
    Array.from({ length: 12 }, (_, k) => (k % 2 === 1 ? 2 : 0)),
  ),
  pattern(
    3,
    Array.from({ length: 12 }, () => 1),
  ),
];

/** A deadline that passes after `reads` looks at the clock, and counts them. */
function countingClock(reads: number) {
  let seen = 0;
  return {
    expired: () => ++seen > reads,
    seen: () => seen,
  };
}

describe('the dynamic program under a deadline', () => {
  it('solves outright when the deadline does not pass', () => {
    const clock = countingClock(Number.POSITIVE_INFINITY);
    const copies = coverByDp(patterns, kinds, 2_000_000, clock.expired);
    // One node of each two-kind pattern covers every pod for $2/h.
    expect(copies).toEqual([1, 1, 0]);
    // It read the clock as it went: once per 4,096 states.
    expect(clock.seen()).toBe(Math.floor((3 ** 12 - 1) / 4096));
  });

  it('stops at the first look at the clock past the deadline, with no result', () => {
    const clock = countingClock(3);
    expect(coverByDp(patterns, kinds, 2_000_000, clock.expired)).toBeUndefined();
    expect(clock.seen()).toBe(4);
  });

  it('refuses work beyond its limit without reading the clock', () => {
    const clock = countingClock(Number.POSITIVE_INFINITY);
    expect(coverByDp(patterns, kinds, 1_000_000, clock.expired)).toBeUndefined();
    expect(clock.seen()).toBe(0);
  });
});
