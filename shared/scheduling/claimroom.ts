// An index of the planned NodeClaims by the room they have left, for the solver's first-fit scan (scheduler.ts
// tryClaims). Claims sit in blocks; each block keeps, per resource, the most room any of its claims has, so a scan for
// a pod skips every block where no claim could hold its requests. With every request different, no per-shape cursor
// helps and a pod would otherwise test every open claim (docs/performance.md, Planning cost).
import type { InflightClaim } from './nodeclaim';

/** Claims per block: small enough that a block is often all full, large enough that the blocks are few. */
export const ROOM_BLOCK = 32;

export class ClaimRoom {
  private room = new Float64Array(0);
  private dirty = new Uint8Array(0);

  constructor(
    private readonly claims: readonly InflightClaim[],
    private readonly dims: number,
  ) {}

  /** The claim at `i` changed (a pod joined, it was retargeted, or it is new). */
  touch(i: number): void {
    const b = Math.floor(i / ROOM_BLOCK);
    if (b >= this.dirty.length) this.grow(b + 1);
    this.dirty[b] = 1;
  }

  /** Whether some claim of the block holding claim `i` may have room for `requests` (false means none has). */
  mayFit(i: number, requests: Float64Array): boolean {
    const b = Math.floor(i / ROOM_BLOCK);
    if (b >= this.dirty.length) return true;
    if (this.dirty[b] === 1) this.refresh(b);
    const off = b * this.dims;
    for (let d = 0; d < this.dims; d++) {
      const r = requests[d] as number;
      if (r > 0 && (this.room[off + d] as number) < r) return false;
    }
    return true;
  }

  private refresh(b: number): void {
    const off = b * this.dims;
    this.room.fill(Number.NEGATIVE_INFINITY, off, off + this.dims);
    const end = Math.min(this.claims.length, (b + 1) * ROOM_BLOCK);
    for (let i = b * ROOM_BLOCK; i < end; i++) {
      const c = this.claims[i] as InflightClaim;
      const alloc = c.target.alloc;
      for (let d = 0; d < this.dims; d++) {
        const left = (alloc[d] as number) - (c.used[d] as number);
        if (left > (this.room[off + d] as number)) this.room[off + d] = left;
      }
    }
    this.dirty[b] = 0;
  }

  private grow(blocks: number): void {
    const n = Math.max(blocks, this.dirty.length * 2);
    const room = new Float64Array(n * this.dims);
    room.set(this.room);
    const dirty = new Uint8Array(n);
    dirty.set(this.dirty);
    this.room = room;
    this.dirty = dirty;
  }
}
