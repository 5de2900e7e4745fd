import { describe, expect, it } from 'vitest';
import { mergePatch } from './merge-patch';

describe('mergePatch', () => {
  it('merges maps, replaces lists and scalars, deletes on null (RFC 7386)', () => {
    const target = { a: { b: 1, c: [1, 2], d: 'x' }, e: 1 };
    expect(mergePatch(target, { a: { b: 2, c: [3], d: null }, f: true })).toEqual({
      a: { b: 2, c: [3] },
      e: 1,
      f: true,
    });
    expect(target.a.d).toBe('x');
  });

  it('replaces a scalar with a map', () => {
    expect(mergePatch({ a: 1 }, { a: { b: null, c: 2 } })).toEqual({ a: { c: 2 } });
  });
});
