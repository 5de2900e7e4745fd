// The NodeClaims planned in one solve, in the order they were opened: their names, the first-fit scan a pod makes
// over them, and the indexes that keep that scan short (claimroom.ts, hostnameindex.ts).
import type { Pod } from '../api/kube';
import { ClaimRoom } from './claimroom';
import type { Deadline } from './deadline';
import { HostnameIndex } from './hostnameindex';
import type { InflightClaim } from './nodeclaim';
import type { PodShape } from './podshape';
import type { ResourceIndex } from './resources';
import type { NodeClaimTemplate } from './template';
import type { HostnameBar, Topology } from './topology';

/** The claim scans read the clock once per this many claims tried. */
const SCAN_CHECK = 32;

export class PlannedClaims {
  /** The claims in planning order; exact packing replaces some of them in place (exact/repack.ts). */
  readonly list: InflightClaim[] = [];
  private readonly count = new Map<string, number>();
  private readonly cursor = new Map<number, number>();
  /** The claims pods limited per node may still join (hostnameindex.ts). */
  private readonly hostnameIndex = new HostnameIndex(this.list);
  /** Planned claims by room left, created with the first claim (resource vectors are final by then). */
  private room: ClaimRoom | undefined;

  constructor(
    private readonly index: ResourceIndex,
    private readonly topology: Topology<PodShape>,
    private readonly deadline: Deadline,
    private readonly nameClaim: (pool: string, n: number) => string,
  ) {}

  /** The name the next claim opened from this template takes. */
  nextName(t: NodeClaimTemplate): string {
    return this.nameClaim(t.name, (this.count.get(t.name) ?? 0) + 1);
  }

  /** Takes the template's next name for a claim that is not opened here (exact packing's new claims). */
  takeName(t: NodeClaimTemplate): string {
    const n = (this.count.get(t.name) ?? 0) + 1;
    this.count.set(t.name, n);
    return this.nameClaim(t.name, n);
  }

  /** Adds a claim just opened from its template under `nextName`; the room index follows it from here on. */
  open(claim: InflightClaim): void {
    const pool = claim.template.name;
    this.count.set(pool, (this.count.get(pool) ?? 0) + 1);
    this.list.push(claim);
    const slot = this.list.length - 1;
    this.room ??= new ClaimRoom(this.list, this.index.names.length);
    const room = this.room;
    claim.onChange = () => room.touch(slot);
    room.touch(slot);
  }

  /**
   * First fit over the planned claims. Each shape keeps a cursor past the leading claims that are closed or known
   * not to take it, so identical pods do not rescan thousands of full claims.
   */
  tryAdd(pod: Pod, shape: PodShape): boolean {
    // A pod limited per node (hostname anti-affinity or spread, its own or another pod's) tests only the claims its
    // limit still allows, in the same order: the claims passed over would each refuse it, so the first fit is the same.
    if (!shape.coLocated) {
      const bar = this.topology.hostnameBars(shape)[0];
      if (bar) return this.tryOpen(pod, shape, bar);
    }
    let start = this.cursor.get(shape.id) ?? 0;
    const claims = this.list;
    // Only claims with room for the pod are offered (claimroom.ts); a pod that may grow a claim, hostname affinity,
    // is offered each. A claim without room now may have room after a retarget, so the cursor does not pass it.
    const room = shape.coLocated ? undefined : this.room;
    const req = shape.requests;
    let tried = 0;
    for (
      let i = room ? room.firstWithRoom(start, req) : start;
      i < claims.length;
      i = room ? room.firstWithRoom(i + 1, req) : i + 1
    ) {
      // A long scan gives up on the deadline; the pod then opens a claim of its own, still a valid plan. (The clock is
      // read at the first claim too, so the check is not first met late in the solve, in code compiled without it.)
      if (tried++ % SCAN_CHECK === 0 && this.deadline.passed()) break;
      const c = claims[i] as InflightClaim;
      // A closed claim may still grow for a pod that must join its pods (nodeclaim.ts canAdd).
      if ((c.closed && !shape.coLocated) || c.failed.has(shape.id)) {
        if (i === start) start = i + 1;
        continue;
      }
      if (c.tryAdd(pod, shape)) {
        this.cursor.set(shape.id, start);
        return true;
      }
    }
    this.cursor.set(shape.id, start);
    return false;
  }

  /** First fit over the claims the bar leaves open (ascending), reading the clock as often as the full scan does. */
  private tryOpen(pod: Pod, shape: PodShape, bar: HostnameBar): boolean {
    let k = 0;
    let placed = false;
    this.hostnameIndex.firstOpen(bar, (slot) => {
      if (k++ % SCAN_CHECK === 0 && this.deadline.passed()) return true;
      const c = this.list[slot] as InflightClaim;
      if (c.failed.has(shape.id) || !c.hasRoomFor(shape.requests)) return false;
      placed = c.tryAdd(pod, shape);
      return placed;
    });
    return placed;
  }
}
