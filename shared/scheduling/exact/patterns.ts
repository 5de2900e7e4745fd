// Node patterns for the exact packing (docs/architecture.md, "Exact small packings"): a pattern is one node of one
// instance type with how many pods of each kind it holds. Only maximal patterns are listed (no further waiting pod
// fits): in a covering program any packing's node can be grown to a maximal one at the same price, so they suffice.

/** Identical pods: same requests and same node requirements. */
export interface Kind {
  requests: Float64Array;
  count: number;
}

/** A node the program may buy: a type with its price and which kinds may share it. */
export interface NodeOption {
  alloc: Float64Array;
  /** Counted against the pool's limits. */
  capacity: Float64Array;
  price: number;
  /** Kind indices allowed on this node (same requirements class, or unconstrained). */
  kinds: readonly number[];
}

export interface Pattern {
  option: number;
  /** Pods per kind, indexed like the kinds. */
  counts: Int32Array;
  price: number;
}

/**
 * Drops options another option beats outright: no dearer, at least as roomy in every resource the pods use (counting
 * only up to the whole batch's demand, so every type bigger than the batch is as good as the cheapest of them),
 * no larger against a limit, and open to the same kinds. Never needed by an optimal packing.
 */
export function undominatedOptions(
  options: readonly NodeOption[],
  kinds: readonly Kind[],
  limited: readonly number[],
): number[] {
  const dims = kinds[0]?.requests.length ?? 0;
  const demand = new Float64Array(dims);
  for (const k of kinds)
    for (let i = 0; i < dims; i++) demand[i] = (demand[i] as number) + k.count * (k.requests[i] as number);
  const room = options.map((o) =>
    Array.from({ length: dims }, (_, i) => Math.min(o.alloc[i] as number, demand[i] as number)),
  );
  const keep: number[] = [];
  for (let b = 0; b < options.length; b++) {
    const ob = options[b] as NodeOption;
    const rb = room[b] as number[];
    let dominated = false;
    for (let a = 0; a < options.length && !dominated; a++) {
      if (a === b) continue;
      const oa = options[a] as NodeOption;
      const ra = room[a] as number[];
      if (oa.price > ob.price || !sameKinds(oa.kinds, ob.kinds)) continue;
      if (!ra.every((v, i) => v >= (rb[i] as number))) continue;
      if (!limited.every((i) => (oa.capacity[i] ?? 0) <= (ob.capacity[i] ?? 0))) continue;
      const equal = oa.price === ob.price && ra.every((v, i) => v === rb[i]);
      // Equal options: keep the first only.
      if (!equal || a < b) dominated = true;
    }
    if (!dominated) keep.push(b);
  }
  return keep;
}

function sameKinds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/**
 * The maximal patterns of the given options, or undefined when there are more than `maxPatterns` or the search
 * visits more than `maxVisits` partial patterns (the caller then keeps the heuristic's packing).
 */
export function maximalPatterns(
  options: readonly NodeOption[],
  which: readonly number[],
  kinds: readonly Kind[],
  maxPatterns: number,
  maxVisits: number,
): Pattern[] | undefined {
  const out: Pattern[] = [];
  const dims = kinds[0]?.requests.length ?? 0;
  let visits = 0;
  for (const oi of which) {
    const o = options[oi] as NodeOption;
    const ks = o.kinds.filter((k) => fitsCopies((kinds[k] as Kind).requests, new Float64Array(dims), o.alloc) > 0);
    if (ks.length === 0) continue;
    const used = new Float64Array(dims);
    const counts = new Int32Array(kinds.length);
    const dfs = (depth: number): boolean => {
      if (++visits > maxVisits) return false;
      if (depth === ks.length) {
        let any = false;
        for (const k of ks) {
          const n = counts[k] as number;
          if (n > 0) any = true;
          if (n < (kinds[k] as Kind).count && fitsCopies((kinds[k] as Kind).requests, used, o.alloc) > 0) return true;
        }
        if (any) out.push({ option: oi, counts: counts.slice(), price: o.price });
        return out.length <= maxPatterns;
      }
      const k = ks[depth] as number;
      const kind = kinds[k] as Kind;
      const most = Math.min(kind.count, fitsCopies(kind.requests, used, o.alloc));
      for (let n = most; n >= 0; n--) {
        counts[k] = n;
        for (let i = 0; i < dims; i++) used[i] = (used[i] as number) + n * (kind.requests[i] as number);
        const ok = dfs(depth + 1);
        for (let i = 0; i < dims; i++) used[i] = (used[i] as number) - n * (kind.requests[i] as number);
        if (!ok) return false;
      }
      counts[k] = 0;
      return true;
    };
    if (!dfs(0)) return undefined;
  }
  return out;
}

/** How many more copies of `req` fit in `alloc` next to `used`. */
export function fitsCopies(req: Float64Array, used: Float64Array, alloc: Float64Array): number {
  let k = Number.POSITIVE_INFINITY;
  for (let i = 0; i < req.length; i++) {
    const r = req[i] as number;
    if (r <= 0) continue;
    const room = (alloc[i] as number) - (used[i] as number);
    let n = Math.floor(room / r);
    // Exact, as fitsVec judges: a rounded quotient may overshoot by one.
    while (n > 0 && n * r > room) n--;
    k = Math.min(k, n);
  }
  return Math.max(0, k);
}
