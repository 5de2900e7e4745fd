import { describe, expect, it } from 'vitest';
import { HostnameIndex } from './hostnameindex';

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
    expect(index.open({ counts, limit: 1 })).toEqual([0, 3]);
    // A limit of two still admits the claim holding one matching pod.
    expect(index.open({ counts, limit: 2 })).toEqual([0, 1, 3]);
    counts.set('c3', 1);
    claims.push({ hostname: 'c4', closed: false });
    expect(index.open({ counts, limit: 1 })).toEqual([0, 4]);
    const first = claims[0];
    if (first) first.closed = true;
    expect(index.open({ counts, limit: 2 })).toEqual([1, 3, 4]);
  });

  it('keeps one list per count map', () => {
    const a = new Map<string, number>([['c0', 1]]);
    const b = new Map<string, number>([['c1', 1]]);
    const index = new HostnameIndex([
      { hostname: 'c0', closed: false },
      { hostname: 'c1', closed: false },
    ]);
    expect(index.open({ counts: a, limit: 1 })).toEqual([1]);
    expect(index.open({ counts: b, limit: 1 })).toEqual([0]);
  });
});
