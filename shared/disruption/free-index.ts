// Where a pod's requests fit first: a max-tree over the nodes in the capacity model's order, each tree node holding
// the largest free amount of every resource below it. A first-fit search descends only into subtrees whose maxima
// cover the request, so "does this fit on any node that stays?" costs about log(nodes) instead of a scan of every
// node. A sweep asks that once per candidate pod, and a scan per question made a 10,000-node sweep quadratic
// (docs/performance.md, "Sweep scale").

export class FreeIndex {
  private readonly size: number;
  /** Per tree node (1-based heap order), `dims` maxima. Unused leaves and closed nodes hold -Infinity. */
  private readonly max: Float64Array;
  /** Each model node's leaf position. */
  private readonly position: Int32Array;

  /**
   * @param order model node indices in first-fit order (leaf i is order[i])
   * @param free each model node's free vector, `dims` long
   */
  constructor(
    private readonly order: readonly number[],
    private readonly free: readonly Float64Array[],
    private readonly dims: number,
  ) {
    let size = 1;
    while (size < order.length) size *= 2;
    this.size = size;
    this.max = new Float64Array(2 * size * dims).fill(Number.NEGATIVE_INFINITY);
    this.position = new Int32Array(free.length).fill(-1);
    order.forEach((node, i) => {
      this.position[node] = i;
      this.max.set(free[node] as Float64Array, (size + i) * dims);
    });
    for (let t = size - 1; t >= 1; t--) this.pull(t);
  }

  /** Re-reads a node's free vector after it changed. */
  update(node: number): void {
    const p = this.position[node] as number;
    if (p < 0) return;
    this.max.set(this.free[node] as Float64Array, (this.size + p) * this.dims);
    this.climb(this.size + p);
  }

  /** Takes a node out of every search (it takes no pods any more). */
  remove(node: number): void {
    const p = this.position[node] as number;
    if (p < 0) return;
    this.max.fill(Number.NEGATIVE_INFINITY, (this.size + p) * this.dims, (this.size + p + 1) * this.dims);
    this.climb(this.size + p);
  }

  /** The first node in order whose free vector covers `need` and that `accept` takes, or -1. */
  first(need: Float64Array, accept: (node: number) => boolean): number {
    const stack: number[] = [1];
    while (stack.length) {
      const t = stack.pop() as number;
      if (!this.covers(t, need)) continue;
      if (t >= this.size) {
        const node = this.order[t - this.size] as number;
        if (accept(node)) return node;
        continue;
      }
      // Right pushed first so the left subtree (earlier in order) is searched first.
      stack.push(2 * t + 1, 2 * t);
    }
    return -1;
  }

  private covers(t: number, need: Float64Array): boolean {
    const base = t * this.dims;
    for (let d = 0; d < this.dims; d++) if ((need[d] as number) > (this.max[base + d] as number) + 1e-9) return false;
    return true;
  }

  private climb(leaf: number): void {
    for (let t = leaf >> 1; t >= 1; t >>= 1) this.pull(t);
  }

  private pull(t: number): void {
    const base = t * this.dims;
    const l = 2 * t * this.dims;
    const r = (2 * t + 1) * this.dims;
    for (let d = 0; d < this.dims; d++) {
      const a = this.max[l + d] as number;
      const b = this.max[r + d] as number;
      this.max[base + d] = a > b ? a : b;
    }
  }
}
