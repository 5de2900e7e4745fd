// The types of a list that hold one pod of given requests, found by rank instead of a check of every type.
//
// A type holds the pod when, in every resource the pod asks for, its room is at least the request. Per resource,
// which types pass depends only on how many of the list's distinct room values lie below the request (its rank).
// The ranks together therefore name the answer: pods whose requests all differ mostly share a handful of answers,
// and each pod then costs a binary search per resource instead of a check of every type of the list
// (docs/performance.md, "Distinct requests: cells and fitting types").
import type { TypeOption } from './instancetypes';
import { fitsVec } from './resources';

/** Products of (distinct values + 1) per resource below this are exact as one number key. */
const EXACT_KEY = 2 ** 52;

export class FittingLists {
  /** Per resource: the distinct room values of the list's types, ascending. */
  private readonly values: Float64Array[];
  /** Per resource: what one rank step weighs in the number key (unused when keys are text). */
  private readonly stride: Float64Array;
  private readonly textKeys: boolean;
  private readonly byKey = new Map<number | string, TypeOption[]>();
  /** Answers by their type indexes: equal answers are one array (template.ts caches by it). */
  private readonly byContent = new Map<string, TypeOption[]>();
  private readonly zero: Float64Array;

  constructor(
    /** The types, in the order answers keep. */
    private readonly types: TypeOption[],
    dims: number,
  ) {
    this.values = [];
    this.stride = new Float64Array(dims);
    this.zero = new Float64Array(dims);
    let size = 1;
    for (let d = 0; d < dims; d++) {
      const distinct = [...new Set(types.map((t) => t.alloc[d] as number))].sort((a, b) => a - b);
      this.values.push(Float64Array.from(distinct));
      this.stride[d] = size;
      size *= distinct.length + 1;
    }
    this.textKeys = size >= EXACT_KEY;
  }

  /** The list's types that hold one pod of `requests`, in list order; the list itself when all of them do. */
  of(requests: Float64Array): TypeOption[] {
    const key = this.keyOf(requests);
    let hit = this.byKey.get(key);
    if (!hit) {
      hit = this.compute(requests);
      this.byKey.set(key, hit);
    }
    return hit;
  }

  /**
   * Per resource the request asks for, the number of distinct room values below it: a type passes that resource
   * exactly when its room is not among them. A resource not asked for has rank 0, as one asked for below every room.
   */
  private keyOf(requests: Float64Array): number | string {
    let key = 0;
    let text = '';
    for (let d = 0; d < requests.length; d++) {
      const r = requests[d] as number;
      const rank = r > 0 ? below(this.values[d] as Float64Array, r) : 0;
      if (this.textKeys) text += `${rank},`;
      else key += rank * (this.stride[d] as number);
    }
    return this.textKeys ? text : key;
  }

  /** The answer for requests whose ranks are new: one pass over the types, then the array of any equal answer. */
  private compute(requests: Float64Array): TypeOption[] {
    const fitting = this.types.filter((o) => fitsVec(this.zero, requests, o.alloc));
    if (fitting.length === this.types.length) return this.types;
    // Different ranks can name equal answers (a type another resource already rules out); they share one array.
    const content = fitting.map((o) => o.index).join(',');
    const same = this.byContent.get(content);
    if (same) return same;
    this.byContent.set(content, fitting);
    return fitting;
  }
}

/** How many of the ascending `values` are below `v`. */
function below(values: Float64Array, v: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
