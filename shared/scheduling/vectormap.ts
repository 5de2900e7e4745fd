// A map keyed by a small number (a kind) and a vector of numbers, without building a text key per entry. The waiting
// queue (queue.ts) looks up a bucket by its requests and kind, and a cell by its bands and kind, once per new base:
// with every request distinct that is once per pod, and joining each vector into a string to hash it was most of
// the queueing's cost (docs/performance.md, "Distinct requests: per-pod setup").
//
// Two keys are equal when their kinds are equal and their vectors have the same length and equal entries, as the
// text keys compared them: 0 and -0 are equal (both read "0"), and NaN equals NaN (both read "NaN").

export class VectorMap<V> {
  /**
   * Entry numbers by hash; a list only where hashes collide. An entry is a slot of the three lists below, not an
   * object: with every request distinct the queue adds a bucket per pod, and an object per entry was one more for the
   * young-generation collector to copy (docs/performance.md, "Distinct requests: what survives the setup").
   */
  private readonly byHash = new Map<number, number | number[]>();
  private readonly kinds: number[] = [];
  private readonly vectors: ArrayLike<number>[] = [];
  private readonly values: V[] = [];

  get size(): number {
    return this.values.length;
  }

  get(kind: number, vector: ArrayLike<number>): V | undefined {
    const at = this.byHash.get(hashOf(kind, vector));
    if (at === undefined) return undefined;
    if (typeof at === 'number') return this.matches(at, kind, vector) ? this.values[at] : undefined;
    for (const e of at) if (this.matches(e, kind, vector)) return this.values[e];
    return undefined;
  }

  /**
   * Adds a key that is not in the map yet. The map keeps `vector` itself, not a copy: the caller must not change it
   * afterwards.
   */
  add(kind: number, vector: ArrayLike<number>, value: V): void {
    const h = hashOf(kind, vector);
    const e = this.values.length;
    this.kinds.push(kind);
    this.vectors.push(vector);
    this.values.push(value);
    const at = this.byHash.get(h);
    if (at === undefined) this.byHash.set(h, e);
    else if (typeof at === 'number') this.byHash.set(h, [at, e]);
    else at.push(e);
  }

  private matches(e: number, kind: number, vector: ArrayLike<number>): boolean {
    const have = this.vectors[e] as ArrayLike<number>;
    if (this.kinds[e] !== kind || have.length !== vector.length) return false;
    for (let i = 0; i < vector.length; i++) {
      const a = have[i] as number;
      const b = vector[i] as number;
      // NaN is the one number not equal to itself: its text key equalled another NaN's.
      if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false;
    }
    return true;
  }
}

/**
 * A 32-bit hash of the kind and the vector, equal for equal keys: it reads each number's integer part (low and high
 * 32 bits), which is the same for 0 and -0 and for any two NaNs; numbers that differ only in their fraction collide,
 * which costs a comparison, not a wrong answer.
 */
export function hashOf(kind: number, vector: ArrayLike<number>): number {
  let h = Math.imul(kind | 0, 0x9e3779b1) ^ vector.length;
  for (let i = 0; i < vector.length; i++) {
    const v = vector[i] as number;
    h = Math.imul(h ^ (v | 0), 0x85ebca6b);
    h = Math.imul(h ^ ((v / 4294967296) | 0), 0xc2b2ae35);
    h ^= h >>> 15;
  }
  return h | 0;
}
