import { describe, expect, it } from 'vitest';
import { hashOf, VectorMap } from './vectormap';

/** The text key the queue used before (queue.ts): numbers joined with commas, then the kind. */
const textKey = (kind: number, v: ArrayLike<number>) => `${Array.from(v).join(',')}|${kind}`;

describe('VectorMap', () => {
  it('finds a key by kind and vector, not by the vector object', () => {
    const m = new VectorMap<string>();
    m.add(1, Float64Array.of(1000, 2 ** 31, 1), 'a');
    expect(m.get(1, Float64Array.of(1000, 2 ** 31, 1))).toBe('a');
    expect(m.get(2, Float64Array.of(1000, 2 ** 31, 1))).toBeUndefined();
    expect(m.get(1, Float64Array.of(1000, 2 ** 31 + 1, 1))).toBeUndefined();
    expect(m.get(1, Float64Array.of(1000, 2 ** 31))).toBeUndefined();
    expect(m.size).toBe(1);
  });

  it('tells apart vectors whose hashes collide', () => {
    // Numbers that differ only in their fraction hash alike (the hash reads integer parts).
    const a = Float64Array.of(1.25, 7);
    const b = Float64Array.of(1.5, 7);
    expect(hashOf(3, a)).toBe(hashOf(3, b));
    const m = new VectorMap<string>();
    m.add(3, a, 'a');
    expect(m.get(3, b)).toBeUndefined();
    m.add(3, b, 'b');
    expect(m.get(3, Float64Array.of(1.25, 7))).toBe('a');
    expect(m.get(3, Float64Array.of(1.5, 7))).toBe('b');
    expect(m.get(3, Float64Array.of(1.75, 7))).toBeUndefined();
  });

  it('treats 0 and -0, and NaN and NaN, as the text keys did', () => {
    const m = new VectorMap<string>();
    m.add(0, [0, Number.NaN], 'z');
    expect(m.get(0, [-0, Number.NaN])).toBe('z');
    expect(m.get(0, [0, 0])).toBeUndefined();
    expect(textKey(0, [0, Number.NaN])).toBe(textKey(0, [-0, Number.NaN]));
  });

  it('agrees with text keys over many random vectors', () => {
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const m = new VectorMap<number>();
    const byText = new Map<string, number>();
    // Few distinct values per position, so that keys repeat and kinds and lengths mix.
    const values = [0, -0, 1, 250, 1.5, 2 ** 20, 2 ** 32 + 3, 2 ** 33 + 3, Number.POSITIVE_INFINITY, Number.NaN];
    for (let i = 0; i < 5000; i++) {
      const kind = Math.floor(next() * 3);
      const v = Array.from({ length: 1 + Math.floor(next() * 3) }, () => values[Math.floor(next() * values.length)]);
      const vector = Float64Array.from(v as number[]);
      const text = textKey(kind, vector);
      expect(m.get(kind, vector)).toBe(byText.get(text));
      if (!byText.has(text)) {
        byText.set(text, i);
        m.add(kind, vector, i);
      }
    }
    expect(m.size).toBe(byText.size);
  });
});
