import { describe, expect, it } from 'vitest';
import { createRng } from '../sim/rng';
import { ClaimRoom, type RoomClaim } from './claimroom';
import { fitsVec } from './resources';

/** A planned claim as the index reads it: what is used of the target's allocatable. */
function claim(alloc: number[], used: number[]): RoomClaim & { used: Float64Array; target: { alloc: Float64Array } } {
  return {
    used: Float64Array.from(used),
    target: { alloc: Float64Array.from(alloc) },
    hasRoomFor(requests) {
      return fitsVec(this.used, requests, this.target.alloc);
    },
  };
}

/** What first fit asks without an index: every claim from `from` on, in order. */
function linearFirst(claims: readonly RoomClaim[], from: number, requests: Float64Array): number {
  for (let i = from; i < claims.length; i++) if ((claims[i] as RoomClaim).hasRoomFor(requests)) return i;
  return claims.length;
}

const req = (...r: number[]) => Float64Array.from(r);

describe('ClaimRoom', () => {
  it('offers the first claim at or after the start whose room holds the requests, in every resource', () => {
    const claims = [claim([4000, 8], [3900, 1]), claim([4000, 8], [1000, 7.5]), claim([4000, 8], [2000, 4])];
    const room = new ClaimRoom(claims, 2);
    for (let i = 0; i < claims.length; i++) room.touch(i);
    // Claim 0 lacks cpu and claim 1 memory; only claim 2 has both.
    expect(room.firstWithRoom(0, req(500, 1))).toBe(2);
    expect(room.firstWithRoom(0, req(100, 1))).toBe(0);
    expect(room.firstWithRoom(1, req(100, 0.5))).toBe(1);
    expect(room.firstWithRoom(0, req(2500, 1))).toBe(3);
    // A resource the pod does not request never rules a claim out.
    expect(room.firstWithRoom(0, req(0, 0.5))).toBe(0);
  });

  it('never passes over a claim where used + request fits the allocatable exactly in floating point', () => {
    // 3.8 - 3.5 is 0.2999999999999998 in floating point, yet 3.5 + 0.3 ≤ 3.8: canAdd takes the pod, so the index must
    // offer the claim. A room compared without slack would pass it over, and the pod would go to a later claim.
    const claims = [claim([3.8], [3.5]), claim([8], [0])];
    const room = new ClaimRoom(claims, 1);
    room.touch(0);
    room.touch(1);
    expect(3.8 - 3.5 < 0.3 && 3.5 + 0.3 <= 3.8).toBe(true);
    expect(room.firstWithRoom(0, req(0.3))).toBe(0);
  });

  it('reads a claim again once touched: a pod joining takes room, a retarget to a larger type gives it back', () => {
    const c = claim([4000, 8], [0, 0]);
    const claims = [c, claim([8000, 16], [0, 0])];
    const room = new ClaimRoom(claims, 2);
    room.touch(0);
    room.touch(1);
    expect(room.firstWithRoom(0, req(3000, 4))).toBe(0);
    c.used.set([3000, 4]);
    room.touch(0);
    expect(room.firstWithRoom(0, req(3000, 4))).toBe(1);
    c.target = { alloc: Float64Array.from([8000, 16]) };
    room.touch(0);
    expect(room.firstWithRoom(0, req(3000, 4))).toBe(0);
  });

  it('agrees with a linear first fit over hundreds of claims opened, filled and retargeted at random', () => {
    const rng = createRng(7);
    const claims: ReturnType<typeof claim>[] = [];
    const room = new ClaimRoom(claims, 3);
    const types = [
      [2000, 4096, 29],
      [4000, 8192, 58],
      [8000, 32768, 58],
      [16000, 65536, 234],
      [1000, 2048, 8],
    ];
    const request = () => req((1 + rng.int(20)) * 100, (1 + rng.int(64)) * 64, 1);
    let checked = 0;
    for (let step = 0; step < 4000; step++) {
      const action = rng.int(10);
      if (claims.length === 0 || action === 0) {
        claims.push(claim(rng.pick(types), [0, 0, 0]));
        room.touch(claims.length - 1);
      } else if (action <= 5) {
        // A pod joins the first claim from a random start that has room for it.
        const r = request();
        const i = linearFirst(claims, rng.int(claims.length), r);
        if (i < claims.length) {
          const c = claims[i] as ReturnType<typeof claim>;
          for (let d = 0; d < 3; d++) c.used[d] = (c.used[d] as number) + (r[d] as number);
          room.touch(i);
        }
      } else if (action === 6) {
        const i = rng.int(claims.length);
        (claims[i] as ReturnType<typeof claim>).target = { alloc: Float64Array.from(rng.pick(types)) };
        room.touch(i);
      } else {
        const r = request();
        const from = rng.int(claims.length);
        expect(room.firstWithRoom(from, r)).toBe(linearFirst(claims, from, r));
        checked++;
      }
    }
    expect(claims.length).toBeGreaterThan(300);
    expect(checked).toBeGreaterThan(500);
  });
});
