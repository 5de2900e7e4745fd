// The target search's candidate types (cost.ts chooseTarget) in the order of their best possible score, produced as
// the search asks for them. The search settles after a dozen or so candidates; sorting all of a catalog's hundreds
// of types for every new claim, and rounding each one's score, was a visible share of a 5k solve
// (docs/performance.md, "The catalog-mixed-5k row").

/** A score rounded to 9 significant digits, so types priced in proportion to their size tie (up to float noise). */
export function roundedScore(raw: number): number {
  return Number.isFinite(raw) ? Number(raw.toPrecision(9)) : raw;
}

/**
 * Candidates in the order a stable sort by (rounded score ascending, worth descending) would give. Rounding is
 * monotone, so the candidates with the smallest rounded score are those with the smallest raw scores: a binary heap
 * on the raw score hands them out, and each run of equal rounded scores is ordered by worth, then by the order the
 * candidates were added in.
 */
export class CandidateOrder<T> {
  private readonly options: T[] = [];
  private readonly raw: Float64Array;
  private readonly worths: Float64Array;
  private readonly prices: Float64Array;
  private readonly heap: Int32Array;
  private size = 0;
  private heaped = false;
  private readonly group: number[] = [];
  private at = 0;
  /** The rounded score of the candidate `next` returned last. */
  bound = Number.NaN;

  constructor(capacity: number) {
    this.raw = new Float64Array(capacity);
    this.worths = new Float64Array(capacity);
    this.prices = new Float64Array(capacity);
    this.heap = new Int32Array(capacity);
  }

  add(option: T, rawScore: number, worth: number, price: number): void {
    const i = this.options.length;
    this.options.push(option);
    this.raw[i] = rawScore;
    this.worths[i] = worth;
    this.prices[i] = price;
    this.heap[this.size++] = i;
  }

  option(i: number): T {
    return this.options[i] as T;
  }

  price(i: number): number {
    return this.prices[i] as number;
  }

  /** The next candidate's index, or -1 when none is left. */
  next(): number {
    if (this.at < this.group.length) return this.group[this.at++] as number;
    if (!this.heaped) {
      for (let k = (this.size >> 1) - 1; k >= 0; k--) this.down(k);
      this.heaped = true;
    }
    if (this.size === 0) return -1;
    const group = this.group;
    group.length = 0;
    this.at = 0;
    const first = this.pop();
    const bound = roundedScore(this.raw[first] as number);
    group.push(first);
    while (this.size > 0 && roundedScore(this.raw[this.heap[0] as number] as number) === bound) group.push(this.pop());
    if (group.length > 1) {
      const w = this.worths;
      group.sort((a, b) => (w[b] as number) - (w[a] as number) || a - b);
    }
    this.bound = bound;
    return group[this.at++] as number;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0] as number;
    this.size--;
    if (this.size > 0) {
      heap[0] = heap[this.size] as number;
      this.down(0);
    }
    return top;
  }

  private down(k: number): void {
    const heap = this.heap;
    const raw = this.raw;
    const n = this.size;
    const item = heap[k] as number;
    const v = raw[item] as number;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= n) break;
      const r = c + 1;
      if (r < n && (raw[heap[r] as number] as number) < (raw[heap[c] as number] as number)) c = r;
      if ((raw[heap[c] as number] as number) >= v) break;
      heap[k] = heap[c] as number;
      k = c;
    }
    heap[k] = item;
  }
}
