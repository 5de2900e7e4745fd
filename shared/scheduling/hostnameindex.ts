// The planned NodeClaims a pod limited per node may still join, for the solver's first-fit scan (scheduler.ts
// tryClaims). A pod with hostname anti-affinity can join no claim that already holds a pod it selects; with every
// request distinct, no per-shape cache remembers that, and each such pod would test every open claim. One list per
// bar (topology.ts HostnameBar) keeps, in claim order, the claims that bar does not exclude and that are not closed;
// both only ever become true, so each claim leaves a list once (docs/performance.md, "Planning cost with distinct
// requests").
import type { HostnameBar } from './topology';

/** What the index reads of a planned claim (nodeclaim.ts InflightClaim). */
export interface IndexedClaim {
  readonly hostname: string;
  /** No waiting pod fits any more; only a hostname-affine pod may still join. */
  readonly closed: boolean;
}

interface OpenList {
  /** Claim slots, ascending: every claim since `seen` is still to be added. */
  slots: number[];
  seen: number;
}

export class HostnameIndex {
  private readonly lists = new Map<ReadonlyMap<string, number>, Map<number, OpenList>>();

  constructor(private readonly claims: readonly IndexedClaim[]) {}

  /**
   * Visits, ascending, the slots of the claims that are not closed and where `bar` is below its limit (a superset of
   * the claims a pod under this bar that cannot reopen a closed claim, not hostname-affine, may join, in scan order)
   * until `visit` returns true; returns whether it did. Claims found closed or barred on the way leave the list; the
   * rest of it is not read, so a pod whose first fit comes early does not pay for the whole list.
   */
  firstOpen(bar: HostnameBar, visit: (slot: number) => boolean): boolean {
    let byLimit = this.lists.get(bar.counts);
    if (!byLimit) {
      byLimit = new Map();
      this.lists.set(bar.counts, byLimit);
    }
    let list = byLimit.get(bar.limit);
    if (!list) {
      list = { slots: [], seen: 0 };
      byLimit.set(bar.limit, list);
    }
    const claims = this.claims;
    for (; list.seen < claims.length; list.seen++) list.slots.push(list.seen);
    const slots = list.slots;
    let kept = 0;
    let k = 0;
    let stopped = false;
    while (k < slots.length) {
      const slot = slots[k++] as number;
      const c = claims[slot] as IndexedClaim;
      if (c.closed || (bar.counts.get(c.hostname) ?? 0) >= bar.limit) continue;
      slots[kept++] = slot;
      if (visit(slot)) {
        stopped = true;
        break;
      }
    }
    if (kept < k) {
      slots.copyWithin(kept, k);
      slots.length -= k - kept;
    }
    return stopped;
  }
}
