import { describe, expect, it } from 'vitest';
import { HostnameIndex } from './hostnameindex';
import type { HostnameBar } from './topology';

/** Every slot the index visits when no visit stops it. */
function open(index: HostnameIndex, bar: HostnameBar): number[] {
  const seen: number[] = [];
  index.firstOpen(bar, (slot) => {
    seen.push(slot);
    return false;
  });
  return seen;
}

describe('HostnameIndex', () => {
  it('lists, in claim order, the claims below the bar and not closed, and takes in claims opened later', () => {
    const counts = new Map<string, number>([['c1', 1]]);
    const claims = [
      { hostname: 'c0', closed: false },
      { hostname: 'c1', closed: false },
      { hostname: 'c2', closed: true },
      { hostname: 'c3', closed: false },
    ];
    const index = new HostnameIndex(claims);
    expect(open(index, { counts, limit: 1 })).toEqual([0, 3]);
    // A limit of two still admits the claim holding one matching pod.
    expect(open(index, { counts, limit: 2 })).toEqual([0, 1, 3]);
    counts.set('c3', 1);
    claims.push({ hostname: 'c4', closed: false });
    expect(open(index, { counts, limit: 1 })).toEqual([0, 4]);
    const first = claims[0];
    if (first) first.closed = true;
    expect(open(index, { counts, limit: 2 })).toEqual([1, 3, 4]);
  });

  it('keeps one list per count map', () => {
    const a = new Map<string, number>([['c0', 1]]);
    const b = new Map<string, number>([['c1', 1]]);
    const index = new HostnameIndex([
      { hostname: 'c0', closed: false },
      { hostname: 'c1', closed: false },
    ]);
    expect(open(index, { counts: a, limit: 1 })).toEqual([1]);
    expect(open(index, { counts: b, limit: 1 })).toEqual([0]);
  });

  it('stops at the first slot the visit takes, and drops only the barred claims it passed', () => {
    const counts = new Map<string, number>([['c1', 1]]);
    const claims = [
      { hostname: 'c0', closed: true },
      { hostname: 'c1', closed: false },
      { hostname: 'c2', closed: false },
      { hostname: 'c3', closed: false },
      { hostname: 'c4', closed: false },
    ];
    const index = new HostnameIndex(claims);
    const visited: number[] = [];
    const found = index.firstOpen({ counts, limit: 1 }, (slot) => {
      visited.push(slot);
      return slot === 2;
    });
    expect(found).toBe(true);
    expect(visited).toEqual([2]);
    // Claims past the stop are still listed, barred or not, and are judged when next read.
    counts.set('c3', 1);
    expect(open(index, { counts, limit: 1 })).toEqual([2, 4]);
    expect(index.firstOpen({ counts, limit: 1 }, () => false)).toBe(false);
  });
});
