// A NodeClaim being planned: its requirements narrow as pods join, its instance-type options shrink to those that
// still match, and it is filled up to its target type (chosen by cost.ts). It decides whether a pod shape can join
// (canAdd) and takes it (add). A pod's volumes keep only the options whose attach limits hold the claim's volumes
// (attachable). Finalizing orders the options by price and cuts them to the configured maximum while
// keeping minValues satisfiable.
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { LabelCapacityType, LabelHostname, LabelInstanceType } from '../api/labels';
import type { Offering } from '../catalog/types';
import { HostPortUsage } from './hostports';
import { cheapestOffering, type OfferingPrices, type TypeOption } from './instancetypes';
import { isInstanceTypeLabel } from './labels';
import type { PodShape } from './podshape';
import { Requirement } from './requirement';
import { narrowed, type Requirements } from './requirements';
import { addVec, fitsVec, type ResourceIndex } from './resources';
import type { NodeClaimTemplate } from './template';
import type { Topology } from './topology';
import type { PlannedNodeClaim, PlannedOffering } from './types';
import { NO_VOLUMES, type PodVolumes, VolumeUsage, withinLimits } from './volumeusage';

/** What a pod joining the claim changes: narrower requirements, fewer options and maybe another target. */
export type ClaimFit =
  | { ok: true; narrowed?: { requirements: Requirements; options: TypeOption[]; target: TypeOption } }
  | { ok: false; reason: string };

const FITS: ClaimFit = { ok: true };
/** Shared answers: a scan of the planned claims asks tens of thousands of times, and mostly hears these. */
const CACHED: ClaimFit = { ok: false, reason: 'cached' };
const DOES_NOT_FIT: ClaimFit = { ok: false, reason: 'does not fit' };

export class InflightClaim {
  readonly used: Float64Array;
  readonly pods: Pod[] = [];
  /** The shape each pod joined with, for counting it once the claim's domain is pinned. */
  readonly shapes: PodShape[] = [];
  readonly hostPorts = new HostPortUsage();
  /** Volumes its pods attach; the limits are its instance types' (attachable). */
  readonly volumes = new VolumeUsage();
  readonly failed = new Set<number>();
  /** No waiting pod is small enough to fit any more: skipped by every scan. */
  closed = false;
  /** Told whenever a pod joins or the target changes (the solver's room index, claimroom.ts). */
  onChange: (() => void) | undefined;

  constructor(
    readonly template: NodeClaimTemplate,
    readonly name: string,
    public requirements: Requirements,
    public options: TypeOption[],
    public target: TypeOption,
    dims: number,
    /** Capacity held against the NodePool's limits (the target's); undefined when the pool has no limits. */
    public reserved: Float64Array | undefined,
    private readonly topology: Topology<PodShape>,
    /** Smallest request per resource over every pending pod: a claim with less room than this is closed. */
    private readonly minRequest: Float64Array,
    private readonly volumesOf: (p: Pod) => PodVolumes = () => NO_VOLUMES,
  ) {
    this.used = new Float64Array(dims);
    this.hostPorts.add(template.daemonHostPorts);
  }

  get hostname(): string {
    return this.name;
  }

  /** Adds the pod when it fits; returns whether it did. (Why not is `canAdd`'s reason, which no caller reads: a
   * topology failure's text is built only when read.) */
  tryAdd(pod: Pod, shape: PodShape): boolean {
    let fit = this.canAdd(shape);
    const vols = this.volumesOf(pod);
    if (fit.ok && vols.size > 0) fit = this.attachable(fit, shape, vols);
    if (!fit.ok) return false;
    this.add(pod, shape, fit);
    return true;
  }

  /** The fit narrowed to the options whose volume attach limits hold the claim's volumes with the pod's. Per pod, so
   * never cached: another pod of the shape may share the claims already here. */
  private attachable(fit: ClaimFit & { ok: true }, shape: PodShape, vols: PodVolumes): ClaimFit {
    const counts = this.volumes.countsWith(vols);
    const cur = fit.narrowed ?? { requirements: this.requirements, options: this.options, target: this.target };
    const options = cur.options.filter((o) => withinLimits(counts, o.it.volumeLimits));
    if (options.length === cur.options.length) return fit;
    const reason = `no instance type option can attach ${[...counts].map(([d, n]) => `${n} ${d} volumes`).join(', ')}`;
    if (options.length === 0) return { ok: false, reason };
    const target = options.includes(cur.target) ? cur.target : this.cheapestFitting(options, shape);
    if (!target) return { ok: false, reason };
    if (this.template.enforceMinValues) {
      const fitting = options.filter((o) => fitsVec(this.used, shape.requests, o.alloc));
      if (minValuesShortfall(fitting, cur.requirements)) return { ok: false, reason: 'minValues' };
    }
    return { ok: true, narrowed: { requirements: cur.requirements, options, target } };
  }

  /**
   * Whether a pod of the shape can join: resources of the target (or a cheaper option that still holds it),
   * taints, requirements, host ports, topology and minValues. Changes nothing but the cache of shapes that never fit.
   */
  canAdd(shape: PodShape): ClaimFit {
    if (this.failed.has(shape.id)) return CACHED;
    const t = this.template;
    // A pod that must share a node with pods here (hostname pod affinity) may grow the claim to a larger option:
    // the type was chosen before the pod was known, and no other node can take it (as Karpenter's claims widen).
    let grown: TypeOption | undefined;
    if (!this.hasRoomFor(shape.requests)) {
      grown = shape.coLocated ? this.cheapestFitting(this.options, shape) : undefined;
      if (!grown) {
        this.failed.add(shape.id);
        return DOES_NOT_FIT;
      }
    }
    if (
      t.untoleratedTaint(shape.classId, shape.tolerations) ||
      t.incompatibility(shape.classId, shape.requirements) ||
      (shape.hostPorts.length > 0 && this.hostPorts.conflict(shape.hostPorts)) ||
      (shape.requirements.size > 0 && this.requirements.incompatibility(shape.requirements, isInstanceTypeLabel))
    ) {
      this.failed.add(shape.id);
      return DOES_NOT_FIT;
    }
    let reqs = narrowed(this.requirements, shape.requirements.list());
    const topo = this.topology.check(shape, reqs ?? this.requirements, this.hostname);
    if (!topo.ok) {
      if (topo.permanent) this.failed.add(shape.id);
      return topo;
    }
    if (topo.requirements.length > 0) reqs = narrowed(reqs ?? this.requirements, topo.requirements) ?? reqs;
    if (!reqs) {
      if (t.enforceMinValues) {
        const fit = this.options.filter((o) => fitsVec(this.used, shape.requests, o.alloc));
        if (minValuesShortfall(fit, this.requirements)) return { ok: false, reason: 'minValues' };
      }
      if (grown)
        return { ok: true, narrowed: { requirements: this.requirements, options: this.options, target: grown } };
      return FITS;
    }
    const requirements = reqs;
    const options = t.compatibleOptions(this.options, requirements);
    let target = grown ?? this.target;
    if (!options.includes(target)) {
      const next = this.cheapestFitting(options, shape);
      if (!next) return { ok: false, reason: 'no instance type option remains' };
      target = next;
    }
    if (t.enforceMinValues) {
      const fit = options.filter((o) => fitsVec(this.used, shape.requests, o.alloc));
      if (minValuesShortfall(fit, requirements)) return { ok: false, reason: 'minValues' };
    }
    return { ok: true, narrowed: { requirements, options, target } };
  }

  /** Whether the target still has room for these requests: canAdd's resource test, which the solver's room index
   * confirms every claim it offers with (claimroom.ts). */
  hasRoomFor(requests: Float64Array): boolean {
    return fitsVec(this.used, requests, this.target.alloc);
  }

  /** Takes the pod: applies what canAdd found (or nothing, for the pod that opens the claim) and counts it. */
  add(pod: Pod, shape: PodShape, fit: ClaimFit = FITS): void {
    const n = fit.ok ? fit.narrowed : undefined;
    if (n) {
      if (n.target !== this.target) this.retarget(n.target);
      const before = this.requirements;
      this.requirements = n.requirements;
      this.options = n.options;
      this.topology.recordPinned(this.shapes, before, n.requirements, this.template.taints);
    }
    addVec(this.used, shape.requests);
    this.hostPorts.add(shape.hostPorts);
    this.volumes.add(this.volumesOf(pod));
    this.pods.push(pod);
    this.shapes.push(shape);
    this.topology.record(shape, this.requirements, this.hostname, this.template.taints, true);
    this.onChange?.();
    const min = this.minRequest;
    const alloc = this.target.alloc;
    for (let i = 0; i < min.length; i++) {
      const m = min[i] as number;
      if (m > 0 && (alloc[i] as number) - (this.used[i] as number) < m) {
        this.closed = true;
        break;
      }
    }
  }

  private cheapestFitting(options: TypeOption[], shape: PodShape): TypeOption | undefined {
    let best: TypeOption | undefined;
    for (const o of options) {
      if (!fitsVec(this.used, shape.requests, o.alloc)) continue;
      if (this.reserved && !this.fitsLimitsAfterSwap(o)) continue;
      if (!best || o.minPrice < best.minPrice) best = o;
    }
    return best;
  }

  private fitsLimitsAfterSwap(o: TypeOption): boolean {
    const r = this.template.remaining;
    if (!r || !this.reserved) return true;
    for (let i = 0; i < r.length; i++) {
      if (!Number.isFinite(r[i])) continue;
      if ((o.capacity[i] ?? 0) > (r[i] as number) + (this.reserved[i] as number)) return false;
    }
    return true;
  }

  private retarget(target: TypeOption): void {
    if (this.reserved) {
      this.template.reserve(this.reserved, -1);
      this.reserved = reservationFor(this.template.remaining, target);
      this.template.reserve(target.capacity, 1);
    }
    this.target = target;
  }
}

/** The capacity a claim of this target holds against the pool's limits; undefined when the pool has none. */
export function reservationFor(remaining: Float64Array | undefined, target: TypeOption): Float64Array | undefined {
  if (!remaining) return undefined;
  const r = new Float64Array(remaining.length);
  for (let i = 0; i < r.length; i++)
    r[i] = Number.isFinite(remaining[i]) ? (target.capacity[i] ?? 0) : Number.POSITIVE_INFINITY;
  return r;
}

/** Whether the option set still offers at least minValues distinct values for every key that asks for them. */
export function minValuesShortfall(options: readonly TypeOption[], reqs: Requirements): string | undefined {
  for (const r of reqs.values()) {
    if (r.minValues === undefined) continue;
    const seen = new Set<string>();
    for (const o of options) {
      const v = r.key === LabelInstanceType ? o.name : o.it.labels[r.key];
      if (v !== undefined && r.has(v)) seen.add(v);
    }
    if (seen.size < r.minValues) {
      return `minValues ${r.minValues} for ${r.key} not met: only ${seen.size} value(s) among the instance types that fit`;
    }
  }
  return undefined;
}

export function allowsSpot(reqs: Requirements): boolean {
  const ct = reqs.get(LabelCapacityType);
  return !ct || ct.has('spot');
}

/**
 * Orders by what the fleet would pay (spot first when the claim may use spot), then by name for determinism. With
 * `limit`, stops after that many (callers without minValues need no more).
 */
export function orderByPrice(
  options: readonly TypeOption[],
  reqs: Requirements,
  prices: OfferingPrices,
  limit = Number.POSITIVE_INFINITY,
  /** Only the options this accepts count, for the order and for whether spot is preferred. */
  keep: (option: TypeOption) => boolean = ANY_OPTION,
): { options: TypeOption[]; preferSpot: boolean } {
  const table = prices.table(reqs);
  let spot = false;
  if (allowsSpot(reqs)) {
    for (let k = 0; k < options.length && !spot; k++) {
      const o = options[k] as TypeOption;
      spot = Number.isFinite(table.spot[o.index] as number) && keep(o);
    }
  }
  return { options: prices.ordered(options, table, spot, keep, limit), preferSpot: spot };
}

const ANY_OPTION = (_: TypeOption) => true;

/** The cheapest `max` options, swapping in the cheapest carriers of missing values when minValues needs them. */
export function truncate(ordered: readonly TypeOption[], reqs: Requirements, max: number): TypeOption[] {
  if (ordered.length <= max) return [...ordered];
  const keep = new Set<TypeOption>();
  for (const r of reqs.values()) {
    if (r.minValues === undefined) continue;
    const seen = new Set<string>();
    for (const o of ordered) {
      if (seen.size >= r.minValues) break;
      const v = r.key === LabelInstanceType ? o.name : o.it.labels[r.key];
      if (v !== undefined && !seen.has(v)) {
        seen.add(v);
        keep.add(o);
      }
    }
  }
  for (const o of ordered) {
    if (keep.size >= max) break;
    keep.add(o);
  }
  return ordered.filter((o) => keep.has(o));
}

export function finalizeClaim(
  claim: InflightClaim,
  index: ResourceIndex,
  maxTypes: number,
): PlannedNodeClaim | undefined {
  const t = claim.template;
  const zero = new Float64Array(claim.used.length);
  const reserved = claim.reserved;
  const fits = (o: TypeOption) =>
    fitsVec(zero, claim.used, o.alloc) && (!reserved || withinReservation(o.capacity, reserved));
  const limit = t.hasMinValues ? Number.POSITIVE_INFINITY : maxTypes;
  // Only the fitting options the cut keeps are ever listed: a claim may have hundreds (docs/performance.md).
  const { options: ordered, preferSpot } = orderByPrice(claim.options, claim.requirements, t.prices, limit, fits);
  const options = truncate(ordered, claim.requirements, maxTypes);
  const first = options[0];
  if (!first) return undefined;
  // Ordered by what the fleet pays, so the first option holds the cheapest offering.
  const off = cheapestOffering(first.offerings, claim.requirements, preferSpot);
  if (!off) return undefined;
  // Listed in name order, which the requirement keeps as its sorted list (requirement.ts): written out unsorted again.
  const names = t.prices.namesInOrder(options);
  const { written, singleValued } = withInstanceTypes(claim.requirements, names);
  const labels: Record<string, string> = { ...t.labels };
  for (const [k, v] of Object.entries(singleValued)) if (k !== LabelHostname) labels[k] = v;
  const requests = new Float64Array(claim.used);
  const daemon = t.daemonFor(first);
  for (let i = 0; i < requests.length; i++) requests[i] = (requests[i] as number) + (daemon[i] ?? 0);
  const requirements = t.enforceMinValues ? written : metMinValues(written, options);
  return {
    name: claim.name,
    nodePool: t.name,
    nodeClass: t.nodeClass,
    requirements,
    minValuesRelaxed: requirements.some((r, i) => r.minValues !== written[i]?.minValues),
    instanceTypeOptions: options.map((o) => o.it),
    labels,
    taints: [...t.taints],
    startupTaints: [...t.startupTaints],
    pods: claim.pods,
    requests: index.toList(requests),
    daemonSetOverhead: index.toList(daemon),
    cheapest: plannedOffering(first, off),
    alternatives: options.slice(1, 1 + ALTERNATIVES_IN_PLAN).flatMap((o) => {
      const alt = cheapestOffering(o.offerings, claim.requirements, preferSpot);
      return alt ? [plannedOffering(o, alt)] : [];
    }),
  };
}

/**
 * The claim's requirements with `instance-type In names` added, written out, and the labels their single values
 * imply. A claim whose requirements name no instance type (the usual case) gets the entry put in its place by key
 * among the others' written form, without building a requirement (a set of up to 60 names per claim) and a copy of
 * the requirements only to write them out; otherwise the requirement is intersected as any other.
 */
function withInstanceTypes(
  requirements: Requirements,
  names: string[],
): { written: NodeSelectorRequirementWithMinValues[]; singleValued: Record<string, string> } {
  if (requirements.has(LabelInstanceType) || names.length === 0) {
    const reqs = requirements.clone().add(Requirement.of(LabelInstanceType, 'In', names));
    return { written: reqs.toNodeSelector(), singleValued: reqs.singleValueLabels() };
  }
  const written = requirements.toNodeSelector();
  let at = 0;
  while (at < written.length && (written[at] as NodeSelectorRequirementWithMinValues).key < LabelInstanceType) at++;
  written.splice(at, 0, { key: LabelInstanceType, operator: 'In', values: names });
  const singleValued = requirements.singleValueLabels();
  if (names.length === 1) singleValued[LabelInstanceType] = names[0] as string;
  return { written, singleValued };
}

/** How many runner-up types a plan names beside the chosen one. */
export const ALTERNATIVES_IN_PLAN = 4;

function plannedOffering(option: TypeOption, off: Offering): PlannedOffering {
  return {
    instanceType: option.name,
    zone: off.zone,
    capacityType: off.capacityType,
    price: off.price,
    ...(off.overlay ? { overlay: off.overlay } : {}),
    ...(option.it.capacityOverlays ? { capacityOverlays: option.it.capacityOverlays } : {}),
  };
}

/** MinValuesPolicy BestEffort: each minValues lowered to the distinct values the claim's options offer, as Karpenter
 * relaxes them (and marks the NodeClaim karpenter.sh/nodeclaim-min-values-relaxed). */
function metMinValues(
  reqs: NodeSelectorRequirementWithMinValues[],
  options: readonly TypeOption[],
): NodeSelectorRequirementWithMinValues[] {
  return reqs.map((r) => {
    if (r.minValues === undefined) return r;
    const offered = new Set(options.flatMap((o) => (o.it.labels[r.key] !== undefined ? [o.it.labels[r.key]] : [])));
    if (r.key === LabelInstanceType) for (const o of options) offered.add(o.name);
    return offered.size >= r.minValues ? r : { ...r, minValues: offered.size };
  });
}

function withinReservation(capacity: Float64Array, reserved: Float64Array): boolean {
  for (let i = 0; i < reserved.length; i++) if ((capacity[i] ?? 0) > (reserved[i] as number) + 1e-9) return false;
  return true;
}
