// Instance types as one NodePool sees them: allocatable after DaemonSet overhead, the offerings its requirements
// allow, and the checks that decide whether a type can serve a NodeClaim's requirements.
import { LabelCapacityType, LabelZone, LabelZoneId } from '../api/labels';
import type { InstanceType, Offering } from '../catalog/types';
import type { Requirement } from './requirement';
import type { Requirements } from './requirements';

export interface TypeOption {
  /** Position in the template's type list (stable, used for caches). */
  index: number;
  it: InstanceType;
  name: string;
  /** Allocatable minus the NodePool's DaemonSet overhead: what pods may use. */
  alloc: Float64Array;
  capacity: Float64Array;
  /** Available offerings allowed by the NodePool's own requirements. */
  offerings: Offering[];
  /** Cheapest such offering price. */
  minPrice: number;
}

const INSTANCE_LABEL_PREFIX = 'karpenter.k8s.aws/instance';

function offeringAllowed(o: Offering, zone?: Requirement, ct?: Requirement, zoneId?: Requirement): boolean {
  return (
    o.available &&
    (!zone || zone.has(o.zone)) &&
    (!ct || ct.has(o.capacityType)) &&
    (!zoneId || zoneId.has(o.zoneId ?? undefined))
  );
}

export function allowedOfferings(offerings: readonly Offering[], reqs: Requirements): Offering[] {
  const zone = reqs.get(LabelZone);
  const ct = reqs.get(LabelCapacityType);
  const zoneId = reqs.get(LabelZoneId);
  return offerings.filter((o) => offeringAllowed(o, zone, ct, zoneId));
}

/** Why the type cannot meet the requirements, or undefined when it can. */
export function typeIncompatibility(t: { it: InstanceType; offerings: readonly Offering[] }, reqs: Requirements) {
  let offeringChecked = false;
  for (const r of reqs.values()) {
    if (r.key === LabelZone || r.key === LabelCapacityType || r.key === LabelZoneId) {
      if (offeringChecked) continue;
      offeringChecked = true;
      const zone = reqs.get(LabelZone);
      const ct = reqs.get(LabelCapacityType);
      const zoneId = reqs.get(LabelZoneId);
      if (!t.offerings.some((o) => offeringAllowed(o, zone, ct, zoneId)))
        return 'no available offering in the allowed zones and capacity types';
      continue;
    }
    const v = t.it.labels[r.key];
    if (v !== undefined) {
      if (!r.has(v)) return `${r.key}=${v} is not in ${r}`;
    } else if (r.key.startsWith(INSTANCE_LABEL_PREFIX) && !r.allowsAbsent()) {
      return `${r.key} is not defined for ${t.it.name}`;
    }
  }
  return undefined;
}

export function typeCompatible(t: { it: InstanceType; offerings: readonly Offering[] }, reqs: Requirements): boolean {
  return typeIncompatibility(t, reqs) === undefined;
}

/**
 * The price the launch would pay for this type under the requirements: a reserved offering first (Karpenter launches
 * into a reservation with room before anything else), then spot when the claim allows spot and the type has a spot
 * offering there (spot goes first), otherwise on-demand.
 */
export function cheapestOffering(
  offerings: readonly Offering[],
  reqs: Requirements,
  preferSpot: boolean,
): Offering | undefined {
  const zone = reqs.get(LabelZone);
  const ct = reqs.get(LabelCapacityType);
  const zoneId = reqs.get(LabelZoneId);
  let best: Offering | undefined;
  let bestRank = 2;
  for (const o of offerings) {
    if (!offeringAllowed(o, zone, ct, zoneId)) continue;
    const rank = o.capacityType === 'reserved' || (preferSpot && o.capacityType === 'spot') ? 0 : 1;
    if (!best || rank < bestRank || (rank === bestRank && o.price < best.price)) {
      best = o;
      bestRank = rank;
    }
  }
  return best;
}

export interface PriceTable {
  /** Cheapest allowed spot / on-demand / reserved price per type index; Infinity when none. */
  spot: Float64Array;
  onDemand: Float64Array;
  reserved: Float64Array;
}

/**
 * Per-type prices under one zone/capacity-type requirement, cached per requirement: thousands of claims share a
 * handful of such requirements, and scanning offerings for each claim's options dominated large solves.
 */
export class OfferingPrices {
  private readonly cache = new Map<string, PriceTable>();
  private readonly orders = new Map<PriceTable, Int32Array[]>();
  private readonly spanCache = new Map<string, OfferingSpans | null>();
  private nameRanks: Int32Array | undefined;
  /** The types' names by rank (set with `nameRanks`). */
  private rankedNames: string[] | undefined;
  private flat: FlatOfferings | undefined;
  /** `ordered`'s options by type index, empty between calls. */
  private slots: ({ index: number } | undefined)[] | undefined;

  constructor(private readonly types: readonly { index: number; name: string; offerings: readonly Offering[] }[]) {}

  /** How many types the prices cover (type indices are below this). */
  get size(): number {
    return this.types.length;
  }

  /** Each type's place among the types sorted by name (as `Array.prototype.sort` orders strings), by type index:
   * a claim's instance-type list is written sorted, and sorting by these numbers spares comparing names. */
  nameRank(): Int32Array {
    if (!this.nameRanks) {
      const byName = [...this.types].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const ranks = new Int32Array(this.types.length);
      byName.forEach((t, rank) => {
        ranks[t.index] = rank;
      });
      this.nameRanks = ranks;
      this.rankedNames = byName.map((t) => t.name);
    }
    return this.nameRanks;
  }

  /** The names of the given types in name order: their ranks sorted as numbers (no comparator to call per pair). */
  namesInOrder(types: readonly { index: number }[]): string[] {
    const rank = this.nameRank();
    const names = this.rankedNames as string[];
    const ranks = new Int32Array(types.length);
    for (let k = 0; k < types.length; k++) ranks[k] = rank[(types[k] as { index: number }).index] as number;
    ranks.sort();
    const out: string[] = [];
    for (let k = 0; k < ranks.length; k++) out.push(names[ranks[k] as number] as string);
    return out;
  }

  /**
   * `options` (types of this list) in the order `order` gives, keeping those `keep` accepts, at most `limit`: the
   * cheapest options of a claim without first copying out the ones that fit. The slots by type index are one array
   * kept for the next call, emptied again before returning (finalizing builds one such list per claim).
   */
  ordered<T extends { index: number }>(
    options: readonly T[],
    t: PriceTable,
    preferSpot: boolean,
    keep: (option: T) => boolean,
    limit: number,
  ): T[] {
    this.slots ??= new Array<{ index: number } | undefined>(this.types.length);
    const slots = this.slots as (T | undefined)[];
    for (let k = 0; k < options.length; k++) {
      const o = options[k] as T;
      slots[o.index] = o;
    }
    const out: T[] = [];
    try {
      const order = this.order(t, preferSpot);
      for (let k = 0; k < order.length && out.length < limit; k++) {
        const o = slots[order[k] as number];
        if (o !== undefined && keep(o)) out.push(o);
      }
    } finally {
      for (let k = 0; k < options.length; k++) slots[(options[k] as T).index] = undefined;
    }
    return out;
  }

  /** Type indices cheapest first (rank, price, name) for a table, without types that have no allowed offering. */
  order(t: PriceTable, preferSpot: boolean): Int32Array {
    let pair = this.orders.get(t);
    if (!pair) {
      pair = [];
      this.orders.set(t, pair);
    }
    const slot = preferSpot ? 1 : 0;
    let o = pair[slot];
    if (!o) {
      const priced = this.types
        .map((type) => ({ type, ...fleetPrice(t, type.index, preferSpot) }))
        .filter((p) => p.rank < 2)
        .sort(
          (a, b) =>
            a.rank - b.rank ||
            a.price - b.price ||
            (a.type.name < b.type.name ? -1 : a.type.name > b.type.name ? 1 : 0),
        );
      o = Int32Array.from(priced.map((p) => p.type.index));
      pair[slot] = o;
    }
    return o;
  }

  table(reqs: Requirements): PriceTable {
    const zone = reqs.get(LabelZone);
    const ct = reqs.get(LabelCapacityType);
    const zoneId = reqs.get(LabelZoneId);
    const key = `${zone ?? ''}|${ct ?? ''}|${zoneId ?? ''}`;
    let t = this.cache.get(key);
    if (!t) {
      const n = this.types.length;
      t = {
        spot: new Float64Array(n).fill(Number.POSITIVE_INFINITY),
        onDemand: new Float64Array(n).fill(Number.POSITIVE_INFINITY),
        reserved: new Float64Array(n).fill(Number.POSITIVE_INFINITY),
      };
      if (zoneId) {
        for (const type of this.types) {
          for (const o of type.offerings) {
            if (!offeringAllowed(o, zone, ct, zoneId)) continue;
            const arr = o.capacityType === 'spot' ? t.spot : o.capacityType === 'reserved' ? t.reserved : t.onDemand;
            if (o.price < (arr[type.index] as number)) arr[type.index] = o.price;
          }
        }
      } else {
        // The same rule on the numbered offerings: each zone and capacity type is asked of the requirements once.
        const f = this.flatOfferings();
        const zoneOk = f.zones.map((z) => !zone || zone.has(z));
        const ctOk = f.capacityTypes.map((c) => !ct || ct.has(c));
        const table = t;
        const byCt = f.capacityTypes.map((c) =>
          c === 'spot' ? table.spot : c === 'reserved' ? table.reserved : table.onDemand,
        );
        for (let i = 0; i < n; i++) {
          const index = this.types[i]?.index as number;
          for (let k = f.start[i] as number; k < (f.start[i + 1] as number); k++) {
            if (!f.available[k] || !zoneOk[f.zone[k] as number] || !ctOk[f.ct[k] as number]) continue;
            const arr = byCt[f.ct[k] as number] as Float64Array;
            if ((f.price[k] as number) < (arr[index] as number)) arr[index] = f.price[k] as number;
          }
        }
      }
      this.cache.set(key, t);
    }
    return t;
  }

  /**
   * Per type index, the zones and capacity types of its offerings that these requirements allow (available or not),
   * as bits (one per zone, one per capacity type, numbered in the order the offerings name them); undefined past 31
   * of either.
   */
  spans(zone: Requirement | undefined, ct: Requirement | undefined): OfferingSpans | undefined {
    const key = `${zone ?? ''}|${ct ?? ''}`;
    let hit = this.spanCache.get(key);
    if (hit === undefined) {
      const f = this.flatOfferings();
      hit = null;
      if (f.zones.length <= 31 && f.capacityTypes.length <= 31) {
        const zoneOk = f.zones.map((z) => !zone || zone.has(z));
        const ctOk = f.capacityTypes.map((c) => !ct || ct.has(c));
        const zones = new Int32Array(this.types.length);
        const cts = new Int32Array(this.types.length);
        for (let i = 0; i < this.types.length; i++) {
          const index = this.types[i]?.index as number;
          for (let k = f.start[i] as number; k < (f.start[i + 1] as number); k++) {
            const z = f.zone[k] as number;
            const c = f.ct[k] as number;
            if (!zoneOk[z] || !ctOk[c]) continue;
            zones[index] = (zones[index] as number) | (1 << z);
            cts[index] = (cts[index] as number) | (1 << c);
          }
        }
        hit = { zones, capacityTypes: cts };
      }
      this.spanCache.set(key, hit);
    }
    return hit ?? undefined;
  }

  private flatOfferings(): FlatOfferings {
    if (!this.flat) {
      const zones = new Map<string, number>();
      const cts = new Map<string, number>();
      const number = (m: Map<string, number>, v: string) => {
        let i = m.get(v);
        if (i === undefined) {
          i = m.size;
          m.set(v, i);
        }
        return i;
      };
      const total = this.types.reduce((sum, t) => sum + t.offerings.length, 0);
      const f: FlatOfferings = {
        start: new Int32Array(this.types.length + 1),
        zone: new Int32Array(total),
        ct: new Int32Array(total),
        price: new Float64Array(total),
        available: new Uint8Array(total),
        zones: [],
        capacityTypes: [],
      };
      let k = 0;
      this.types.forEach((t, i) => {
        f.start[i] = k;
        for (const o of t.offerings) {
          f.zone[k] = number(zones, o.zone);
          f.ct[k] = number(cts, o.capacityType);
          f.price[k] = o.price;
          f.available[k] = o.available ? 1 : 0;
          k++;
        }
      });
      f.start[this.types.length] = k;
      f.zones = [...zones.keys()];
      f.capacityTypes = [...cts.keys()];
      this.flat = f;
    }
    return this.flat;
  }
}

/** Zones and capacity types per type index, as bits (OfferingPrices.spans). */
export interface OfferingSpans {
  zones: Int32Array;
  capacityTypes: Int32Array;
}

/** The types' offerings in one run, type by type, with zones and capacity types numbered. */
interface FlatOfferings {
  /** Type i's offerings are [start[i], start[i + 1]). */
  start: Int32Array;
  zone: Int32Array;
  ct: Int32Array;
  price: Float64Array;
  available: Uint8Array;
  zones: string[];
  capacityTypes: string[];
}

/** What the fleet pays for type `i`: a reservation with room first, then spot when preferring spot and the type has
 * it, else on-demand. Rank 2: none. */
export function fleetPrice(t: PriceTable, i: number, preferSpot: boolean): { rank: number; price: number } {
  const reserved = t.reserved[i] as number;
  if (Number.isFinite(reserved)) return { rank: 0, price: reserved };
  const spot = t.spot[i] as number;
  const od = t.onDemand[i] as number;
  if (preferSpot) {
    if (Number.isFinite(spot)) return { rank: 0, price: spot };
    return Number.isFinite(od) ? { rank: 1, price: od } : { rank: 2, price: od };
  }
  const p = Math.min(spot, od);
  return Number.isFinite(p) ? { rank: 0, price: p } : { rank: 2, price: p };
}
