import { describe, expect, it } from 'vitest';
import { fixtureInstanceTypes } from '../../testkit/instance-types';
import { FittingLists } from './fitting';
import type { TypeOption } from './instancetypes';
import { fitsVec } from './resources';

/** A deterministic generator, so a failure names its seed. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const it0 = fixtureInstanceTypes()[0] as TypeOption['it'];

/** Types whose rooms are drawn from a few values per resource, so that rooms tie across types. */
function typesOf(rand: () => number, n: number, dims: number): TypeOption[] {
  return Array.from({ length: n }, (_, index) => ({
    index,
    it: it0,
    name: `t${index}`,
    // Some rooms are zero (a resource the type lacks) and some negative (overhead above allocatable).
    alloc: Float64Array.from({ length: dims }, () => Math.floor(rand() * 7) * 1000 - (rand() < 0.05 ? 1500 : 0)),
    capacity: new Float64Array(dims),
    offerings: [],
    minPrice: 1,
  }));
}

function requestOf(rand: () => number, dims: number): Float64Array {
  // Zero (not asked for), negative, exactly a room value, or between room values.
  return Float64Array.from({ length: dims }, () => {
    const u = rand();
    if (u < 0.2) return 0;
    if (u < 0.25) return -500;
    if (u < 0.5) return Math.floor(rand() * 7) * 1000;
    return rand() * 7000;
  });
}

describe('FittingLists', () => {
  it('answers as a check of every type would, and equal answers are one array', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = lcg(seed);
      const dims = 1 + Math.floor(rand() * 4);
      const types = typesOf(rand, 1 + Math.floor(rand() * 40), dims);
      const lists = new FittingLists(types, dims);
      const zero = new Float64Array(dims);
      const seen = new Map<string, TypeOption[]>();
      for (let q = 0; q < 60; q++) {
        const requests = requestOf(rand, dims);
        const got = lists.of(requests);
        const want = types.filter((t) => fitsVec(zero, requests, t.alloc));
        expect(
          got.map((t) => t.index),
          `seed ${seed}, requests ${[...requests]}`,
        ).toEqual(want.map((t) => t.index));
        if (want.length === types.length) expect(got).toBe(types);
        const content = want.map((t) => t.index).join(',');
        const before = seen.get(content);
        if (before) expect(got, `seed ${seed}: the same answer as another array`).toBe(before);
        else seen.set(content, got);
      }
    }
  });

  it('keys by text when the ranks cannot be one exact number', () => {
    const rand = lcg(7);
    // 12 resources of up to 40 distinct rooms each: 41^12 is past 2^52.
    const dims = 12;
    const types = Array.from({ length: 40 }, (_, index) => ({
      ...(typesOf(rand, 1, dims)[0] as TypeOption),
      index,
      alloc: Float64Array.from({ length: dims }, (_, d) => (index + 1) * 100 + d),
    }));
    const lists = new FittingLists(types, dims);
    const zero = new Float64Array(dims);
    // Two requests that differ only in the first resource's rank, with the last resource's rank weighing 41^11 in a
    // number key: as one float the two keys would be the same number.
    const last = Float64Array.from({ length: dims }, (_, d) => (d === dims - 1 ? 150 : 0));
    const both = Float64Array.from(last, (v, d) => (d === 0 ? 250 : v));
    expect(lists.of(last).map((t) => t.index)).toEqual(types.slice(1).map((t) => t.index));
    expect(lists.of(both).map((t) => t.index)).toEqual(types.slice(2).map((t) => t.index));
    for (let q = 0; q < 200; q++) {
      const requests = Float64Array.from({ length: dims }, () => (rand() < 0.5 ? 0 : rand() * 4200));
      const want = types.filter((t) => fitsVec(zero, requests, t.alloc)).map((t) => t.index);
      expect(lists.of(requests).map((t) => t.index)).toEqual(want);
    }
  });
});
