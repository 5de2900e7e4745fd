// An index of the planned NodeClaims by the room they have left, for the solver's first-fit scan (scheduler.ts
// tryClaims). A tree over the claims in planning order keeps, per node and per resource, the most room any claim below
// it has, so the scan goes straight to the next claim that may hold the pod's requests: the claims in between are
// never asked (canAdd), and which claim the pod lands on does not change. On the catalog's many small claims the scan
// used to ask about nine claims per pod that had no room for it (docs/performance.md, "A room index per claim").
//
// The tree only filters. A node's room carries a slack of a few units in the last place, so a claim where
// `used + request ≤ allocatable` holds in floating point is never passed over for a rounding difference; each claim
// the tree offers is confirmed on the claim itself (InflightClaim.hasRoomFor), and the scan moves on when it is not.

/** What the index reads of a planned claim (nodeclaim.ts InflightClaim). */
export interface RoomClaim {
  readonly used: Float64Array;
  readonly target: { readonly alloc: Float64Array };
  /** The exact test: `used + requests ≤ allocatable` in every resource the requests name. */
  hasRoomFor(requests: Float64Array): boolean;
}

/** Relative slack on a claim's room: covers the rounding of `alloc - used` against `used + request ≤ alloc`. */
const SLACK = 2 ** -50;
const MIN_LEAVES = 64;

export class ClaimRoom {
  /** Leaves (a power of two): node n's room is keys[n * dims ...]; the root is node 1, leaf i is node leaves + i. */
  private leaves = 0;
  private keys = new Float64Array(0);
  private readonly dirty: number[] = [];
  private isDirty = new Uint8Array(0);

  constructor(
    private readonly claims: readonly RoomClaim[],
    private readonly dims: number,
  ) {}

  /** The claim at `slot` changed (a pod joined, it was retargeted, or it is new); read again before the next search. */
  touch(slot: number): void {
    if (slot >= this.leaves) this.grow(slot + 1);
    if (this.isDirty[slot] === 1) return;
    this.isDirty[slot] = 1;
    this.dirty.push(slot);
  }

  /** The first slot at or after `from` whose claim has room for `requests`, or the number of claims when none has. */
  firstWithRoom(from: number, requests: Float64Array): number {
    const n = this.claims.length;
    this.flush();
    for (let i = from; i < n; i++) {
      i = this.search(i, requests);
      if (i >= n || (this.claims[i] as RoomClaim).hasRoomFor(requests)) return Math.min(i, n);
    }
    return n;
  }

  /** The first leaf at or after `from` whose room (with slack) may hold `requests`; `leaves` when none. */
  private search(from: number, requests: Float64Array): number {
    if (from >= this.leaves) return this.leaves;
    let node = this.leaves + from;
    for (;;) {
      if (this.mayHold(node, requests)) {
        if (node >= this.leaves) return node - this.leaves;
        node *= 2;
        continue;
      }
      // This subtree holds nothing: climb while it is a right child, then go to the right sibling.
      while (node & 1) node >>= 1;
      if (node === 0) return this.leaves;
      node++;
    }
  }

  private mayHold(node: number, requests: Float64Array): boolean {
    const off = node * this.dims;
    for (let d = 0; d < this.dims; d++) {
      const r = requests[d] as number;
      if (r > 0 && r > (this.keys[off + d] as number)) return false;
    }
    return true;
  }

  private flush(): void {
    const dims = this.dims;
    const keys = this.keys;
    for (const slot of this.dirty) {
      this.isDirty[slot] = 0;
      const c = this.claims[slot] as RoomClaim;
      const alloc = c.target.alloc;
      let node = this.leaves + slot;
      for (let d = 0; d < dims; d++) {
        const a = alloc[d] as number;
        const u = c.used[d] as number;
        const room = a - u + (Math.abs(a) + Math.abs(u)) * SLACK;
        // NaN (infinite allocatable and use) must never hide a claim.
        keys[node * dims + d] = Number.isNaN(room) ? Number.POSITIVE_INFINITY : room;
      }
      for (node >>= 1; node >= 1; node >>= 1) {
        const at = node * dims;
        const left = 2 * node * dims;
        for (let d = 0; d < dims; d++)
          keys[at + d] = Math.max(keys[left + d] as number, keys[left + dims + d] as number);
      }
    }
    this.dirty.length = 0;
  }

  /** Doubles the leaves and reads every claim again (a few times per solve). */
  private grow(slots: number): void {
    let leaves = Math.max(MIN_LEAVES, this.leaves);
    while (leaves < slots) leaves *= 2;
    this.leaves = leaves;
    this.keys = new Float64Array(2 * leaves * this.dims).fill(Number.NEGATIVE_INFINITY);
    this.isDirty = new Uint8Array(leaves);
    this.dirty.length = 0;
    for (let i = 0; i < this.claims.length; i++) {
      this.isDirty[i] = 1;
      this.dirty.push(i);
    }
  }
}
