// A map keyed by a small number (a kind) and a vector of numbers, without building a text key per entry. The waiting
// queue (queue.ts) looks up a bucket by its requests and kind, and a cell by its bands and kind, once per new base:
// with every request distinct that is once per pod, and joining each vector into a string to hash it was most of
// the queueing's cost (docs/performance.md, "session 7").
//
// Two keys are equal when their kinds are equal and their vectors have the same length and equal entries, as the
// text keys compared them: 0 and -0 are equal (both read "0"), and NaN equals NaN (both read "NaN").

interface Entry<V> {
  kind: number;
  vector: ArrayLike<number>;
  value: V;
}

export class VectorMap<V> {
  /** Entries by hash; a list only where hashes collide. */
  private readonly byHash = new Map<number, Entry<V> | Entry<V>[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(kind: number, vector: ArrayLike<number>): V | undefined {
    const at = this.byHash.get(hashOf(kind, vector));
    if (at === undefined) return undefined;
    if (!Array.isArray(at)) return matches(at, kind, vector) ? at.value : undefined;
    for (const e of at) if (matches(e, kind, vector)) return e.value;
    return undefined;
  }

  /**
   * Adds a key that is not in the map yet. The map keeps `vector` itself, not a copy: the caller must not change it
   * afterwards.
   */
  add(kind: number, vector: ArrayLike<number>, value: V): void {
    const h = hashOf(kind, vector);
    const entry: Entry<V> = { kind, vector, value };
    const at = this.byHash.get(h);
    if (at === undefined) this.byHash.set(h, entry);
    else if (Array.isArray(at)) at.push(entry);
    else this.byHash.set(h, [at, entry]);
    this.count++;
  }
}

function matches<V>(e: Entry<V>, kind: number, vector: ArrayLike<number>): boolean {
  if (e.kind !== kind || e.vector.length !== vector.length) return false;
  for (let i = 0; i < vector.length; i++) {
    const a = e.vector[i] as number;
    const b = vector[i] as number;
    // NaN is the one number not equal to itself: its text key equalled another NaN's.
    if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false;
  }
  return true;
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
