// A NodePool as the solver uses it: its requirements (with its template labels and its own name), taints, DaemonSet
// overhead, the instance types it may launch, the domains it can create, and what its limits leave.
import type { NodePool } from '../api/karpenter';
import type { DaemonSet, Pod, Taint } from '../api/kube';
import { LabelCapacityType, LabelEC2NodeClass, LabelNodePool, LabelZone } from '../api/labels';
import { parseResource } from '../api/quantity';
import type { ResourceList } from '../api/resources';
import type { InstanceType } from '../catalog/types';
import type { RankedType } from './duals';
import { FittingLists } from './fitting';
import { formatHostPort, type HostPort, HostPortUsage, podHostPorts } from './hostports';
import { allowedOfferings, OfferingPrices, type TypeOption, typeCompatible } from './instancetypes';
import { isInstanceTypeLabel } from './labels';
import { whyNoInstanceTypes } from './no-types';
import type { PodShape } from './podshape';
import { matchableTerms, matchesNoNode } from './preferences';
import { describeReqs, limitText, resourceFailure } from './reasons';
import { Requirement } from './requirement';
import { Requirements } from './requirements';
import { podRequests, type ResourceIndex } from './resources';
import { firstUntolerated, formatTaint } from './taints';
import type { MinValuesPolicy } from './types';

export class NodeClaimTemplate {
  readonly name: string;
  readonly weight: number;
  readonly nodeClass: string;
  readonly requirements: Requirements;
  readonly labels: Record<string, string>;
  readonly taints: Taint[];
  readonly startupTaints: Taint[];
  readonly hasMinValues: boolean;
  /** minValues block a claim that cannot meet them (MinValuesPolicy Strict); under BestEffort they only steer. */
  readonly enforceMinValues: boolean;
  types: TypeOption[] = [];
  /** Why `types` is empty, when it is (whyNoInstanceTypes). */
  noTypesReason = '';
  prices = new OfferingPrices([]);
  daemonOverhead: ResourceList = {};
  daemonVector: Float64Array = new Float64Array(0);
  /** Host ports the pool's DaemonSets bind: every new node of the pool starts with them taken. */
  daemonHostPorts: HostPort[] = [];
  private daemons: { requests: ResourceList; alternatives: Requirements[] }[] = [];
  private readonly daemonByType = new Map<string, Float64Array>();
  /** Limit per resource index; Infinity where unlimited. Undefined when the NodePool sets no limits. */
  remaining: Float64Array | undefined;
  limitList: ResourceList | undefined;
  /** Dual price per unit of each resource (index-aligned), from the LP relaxation; see duals.ts. */
  duals: Float64Array = new Float64Array(0);
  /** Types ordered by best possible cost score under `duals` (see cost.ts). */
  ranked: RankedType[] = [];
  // Per shape class (podshape.ts classId: shapes that differ only in their requests), or per shape where the answer
  // depends on the requests; ids are stable for a solve. The answers below are asked for every pod of a shape.
  /** Can pods of the class run on each type (0 unknown, 1 yes, 2 no). */
  private readonly shareCache = new Map<number, Int8Array>();
  private readonly taintCache = new Map<number, Taint | null>();
  private readonly reqCache = new Map<number, string | null>();
  private readonly mergedCache = new Map<number, Requirements>();
  private readonly typesCache = new Map<number, { compatible: TypeOption[]; fitting: TypeOption[] }>();
  /** The pool's types compatible with a class's requirements (typesFor), and by the requirements as text. */
  private readonly compatibleByClass = new Map<number, TypeOption[]>();
  private readonly compatibleByReqs = new Map<string, TypeOption[]>();
  /** How many zones and capacity types the types compatible with a class's requirements span. */
  private readonly offeringSpanByClass = new Map<number, { zones: number; cts: number }>();
  /** fittingOfferingRequirements by class and fitting list. */
  private readonly offeringReqByClass = new Map<number, Map<readonly TypeOption[], Requirements>>();
  /** Fitting lists (fittingOf) by the compatible list they are drawn from. */
  private readonly fittingByList = new Map<TypeOption[], FittingLists>();
  /** Whether each type meets a set of requirements (0 unknown, 1 yes, 2 no), by the requirements as text: claims
   * pinned to a zone share a handful of requirement sets, and rechecking a catalog's hundreds of types for every
   * such claim was a visible share of a 5k solve (docs/performance.md, "The catalog-mixed-5k row"). */
  private readonly compatibleByText = new Map<string, Int8Array>();
  private readonly candidateCache = new WeakMap<readonly TypeOption[], Uint8Array>();

  constructor(
    readonly nodePool: NodePool,
    private readonly rawTypes: InstanceType[],
    minValuesPolicy: MinValuesPolicy = 'Strict',
  ) {
    const spec = nodePool.spec.template.spec;
    this.name = nodePool.metadata.name;
    this.weight = nodePool.spec.weight ?? 0;
    this.nodeClass = spec.nodeClassRef?.name ?? '';
    // The claim carries its pool's name and class as labels, as under Karpenter, and they are requirements like any
    // other: a pod selecting another pool or class cannot land here.
    this.labels = {
      ...(nodePool.spec.template.metadata?.labels ?? {}),
      [LabelNodePool]: this.name,
      ...(this.nodeClass ? { [LabelEC2NodeClass]: this.nodeClass } : {}),
    };
    this.requirements = Requirements.from(spec.requirements ?? []).addAll(Requirements.fromLabels(this.labels));
    this.taints = spec.taints ?? [];
    this.startupTaints = spec.startupTaints ?? [];
    this.hasMinValues = [...this.requirements.values()].some((r) => r.minValues !== undefined);
    this.enforceMinValues = this.hasMinValues && minValuesPolicy === 'Strict';
    if (nodePool.spec.limits) {
      this.limitList = {};
      for (const [k, v] of Object.entries(nodePool.spec.limits)) this.limitList[k] = parseResource(k, v);
    }
  }

  /**
   * Which DaemonSets land on this pool's nodes: those that tolerate its taints and match its requirements and some
   * of its types. `daemonOverhead` sums them all; each type is charged only the DaemonSets it can run (buildTypes),
   * so one whose node affinity picks some sizes or families does not shut the others out.
   */
  computeDaemonOverhead(daemonSets: readonly DaemonSet[]): void {
    const total: ResourceList = {};
    this.daemons = [];
    this.daemonHostPorts = [];
    for (const ds of daemonSets) {
      const pod: Pod = {
        metadata: {
          name: ds.metadata.name,
          namespace: ds.metadata.namespace ?? 'default',
          labels: ds.spec.template.metadata?.labels ?? {},
        },
        spec: ds.spec.template.spec,
      };
      const hard = this.taints.filter((t) => t.effect !== 'PreferNoSchedule');
      if (firstUntolerated(hard, pod.spec.tolerations ?? [])) continue;
      const alternatives = this.daemonAlternatives(pod);
      if (alternatives.length === 0) continue;
      const requests = podRequests(pod);
      for (const [k, v] of Object.entries(requests)) total[k] = (total[k] ?? 0) + v;
      this.daemons.push({ requests, alternatives });
      this.daemonHostPorts.push(...podHostPorts(pod));
    }
    this.daemonOverhead = total;
  }

  /** The DaemonSet pod's nodeSelector with each of its ORed required node-affinity terms that fits the pool's
   * requirements and one of its types; none: it runs on no node of this pool (only empty terms: nowhere). */
  private daemonAlternatives(pod: Pod): Requirements[] {
    if (matchesNoNode(pod)) return [];
    const terms = matchableTerms(pod);
    const alternatives = terms.length ? terms : [{ matchExpressions: [] }];
    const out: Requirements[] = [];
    for (const term of alternatives) {
      const reqs = Requirements.fromLabels(pod.spec.nodeSelector).addAll(
        Requirements.from(term.matchExpressions ?? []),
      );
      if (this.requirements.incompatibility(reqs, isInstanceTypeLabel)) continue;
      if (this.rawTypes.some((it) => typeCompatible({ it, offerings: it.offerings }, reqs))) out.push(reqs);
    }
    return out;
  }

  /** The overhead of the DaemonSets that can run on this type. */
  private daemonVectorFor(it: InstanceType, index: ResourceIndex): Float64Array {
    const v = new Float64Array(index.names.length);
    for (const d of this.daemons) {
      if (!d.alternatives.some((reqs) => typeCompatible({ it, offerings: it.offerings }, reqs))) continue;
      const r = index.vector(d.requests);
      for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) + (r[i] as number);
    }
    return v;
  }

  /** The DaemonSet overhead a node of this type carries (what `alloc` already excludes). */
  daemonFor(o: TypeOption): Float64Array {
    return this.daemonByType.get(o.name) ?? this.daemonVector;
  }

  /** Builds the type options once the resource index is complete. */
  buildTypes(index: ResourceIndex): void {
    this.daemonVector = index.vector(this.daemonOverhead);
    const out: TypeOption[] = [];
    const daemonOf = (it: InstanceType) => {
      let v = this.daemonByType.get(it.name);
      if (!v) {
        v = this.daemonVectorFor(it, index);
        this.daemonByType.set(it.name, v);
      }
      return v;
    };
    for (const it of this.rawTypes) {
      const offerings = allowedOfferings(it.offerings, this.requirements);
      if (offerings.length === 0) continue;
      if (!typeCompatible({ it, offerings }, this.requirements)) continue;
      const alloc = index.vector(it.allocatable);
      const daemon = daemonOf(it);
      for (let i = 0; i < alloc.length; i++) alloc[i] = (alloc[i] as number) - (daemon[i] as number);
      if (alloc.some((v) => v < 0)) continue;
      let minPrice = Number.POSITIVE_INFINITY;
      for (const o of offerings) minPrice = Math.min(minPrice, o.price);
      out.push({
        index: out.length,
        it,
        name: it.name,
        alloc,
        capacity: index.vector(it.capacity),
        offerings,
        minPrice,
      });
    }
    this.types = out;
    if (out.length === 0) {
      const fits = (it: InstanceType) => {
        const daemon = daemonOf(it);
        return index.vector(it.allocatable).every((v, i) => v >= (daemon[i] as number));
      };
      this.noTypesReason = whyNoInstanceTypes(this.rawTypes, this.requirements, this.nodeClass, fits);
    }
    this.prices = new OfferingPrices(out);
    this.duals = new Float64Array(index.names.length);
    if (this.limitList) {
      this.remaining = new Float64Array(index.names.length).fill(Number.POSITIVE_INFINITY);
      for (const [k, v] of Object.entries(this.limitList)) this.remaining[index.id(k)] = v;
    }
  }

  /** Subtracts usage (existing nodes of this pool) from the limits. */
  consume(usage: ResourceList, index: ResourceIndex): void {
    if (!this.remaining) return;
    for (const [k, v] of Object.entries(usage)) {
      const i = index.lookup(k);
      if (i !== undefined) this.remaining[i] = (this.remaining[i] as number) - v;
    }
  }

  withinLimits(capacity: Float64Array): boolean {
    const r = this.remaining;
    if (!r) return true;
    for (let i = 0; i < r.length; i++) if ((capacity[i] ?? 0) > (r[i] as number)) return false;
    return true;
  }

  reserve(capacity: Float64Array, sign: 1 | -1): void {
    const r = this.remaining;
    if (!r) return;
    for (let i = 0; i < r.length; i++) if (Number.isFinite(r[i])) r[i] = (r[i] as number) - sign * (capacity[i] ?? 0);
  }

  untoleratedTaint(classId: number, tolerations: Parameters<typeof firstUntolerated>[1]): Taint | undefined {
    let hit = this.taintCache.get(classId);
    if (hit === undefined) {
      hit = firstUntolerated(this.taints, tolerations) ?? null;
      this.taintCache.set(classId, hit);
    }
    return hit ?? undefined;
  }

  incompatibility(classId: number, reqs: Requirements): string | undefined {
    let hit = this.reqCache.get(classId);
    if (hit === undefined) {
      hit = this.requirements.incompatibility(reqs, isInstanceTypeLabel) ?? null;
      this.reqCache.set(classId, hit);
    }
    return hit ?? undefined;
  }

  /**
   * Whether this NodePool can open a claim for the shape: the types that hold one such pod within the limits, with
   * their offering requirements; or why not (an untolerated taint, incompatible requirements, a host port clash, no
   * type that fits, the limits).
   */
  admit(shape: PodShape, index: ResourceIndex): { options: TypeOption[]; reqs: Requirements } | { reason: string } {
    const taint = this.untoleratedTaint(shape.classId, shape.tolerations);
    if (taint) return { reason: `taint ${formatTaint(taint)} is not tolerated` };
    const why = this.incompatibility(shape.classId, shape.requirements);
    if (why) return { reason: why };
    const selfConflict = shape.hostPorts.length > 1 ? new HostPortUsage().conflict(shape.hostPorts) : undefined;
    if (selfConflict) return { reason: `host port ${formatHostPort(selfConflict)} is requested twice` };
    const daemonConflict = shape.hostPorts.length > 0 ? this.daemonPortConflict(shape.hostPorts) : undefined;
    if (daemonConflict)
      return { reason: `host port ${formatHostPort(daemonConflict)} is bound by a DaemonSet on every new node` };
    const { compatible, fitting } = this.typesFor(shape);
    if (compatible.length === 0) {
      return {
        reason:
          this.types.length === 0
            ? `no instance types are available to this nodepool: ${this.noTypesReason}`
            : `no instance type satisfies the requirements ${describeReqs(shape.requirements) || describeReqs(this.requirements)}`,
      };
    }
    if (fitting.length === 0) return { reason: resourceFailure(compatible, shape, this, index) };
    const inLimits = this.remaining ? fitting.filter((o) => this.withinLimits(o.capacity)) : fitting;
    if (inLimits.length === 0) return { reason: `limits would be exceeded (${limitText(this, index)})` };
    const reqs =
      inLimits === fitting
        ? this.fittingOfferingRequirements(shape)
        : this.offeringRequirements(inLimits, this.merged(shape));
    return { options: inLimits, reqs };
  }

  private daemonPortConflict(ports: readonly HostPort[]): HostPort | undefined {
    const daemonPorts = new HostPortUsage();
    daemonPorts.add(this.daemonHostPorts);
    return daemonPorts.conflict(ports);
  }

  /**
   * The options as a mark per type index, kept per options list: the claims a shape opens share its admitted list,
   * and marking hundreds of types per claim opened was a visible part of a cold solve (docs/performance.md, "The cold
   * 5k rows").
   */
  candidates(options: readonly TypeOption[]): Uint8Array {
    let marks = this.candidateCache.get(options);
    if (!marks) {
      marks = new Uint8Array(this.types.length);
      for (let k = 0; k < options.length; k++) marks[(options[k] as TypeOption).index] = 1;
      this.candidateCache.set(options, marks);
    }
    return marks;
  }

  /** Values this pool can give a node for a topology key (zones and capacity types come from offerings). */
  domains(key: string): string[] {
    const out = new Set<string>();
    if (key === LabelZone || key === LabelCapacityType) {
      for (const t of this.types) for (const o of t.offerings) out.add(key === LabelZone ? o.zone : o.capacityType);
      return [...out];
    }
    const r = this.requirements.get(key);
    if (r && !r.complement) return [...r.values];
    const v = new Set<string>();
    for (const t of this.types) {
      const l = t.it.labels[key];
      if (l !== undefined && (!r || r.has(l))) v.add(l);
    }
    return [...v];
  }

  /** Zone and capacity-type requirements spanning the offerings of the given types, so claims always know them. */
  offeringRequirements(
    types: readonly TypeOption[],
    reqs: Requirements,
    /** How many zones and capacity types a superset of `types` spans: once reached, no more can be found. */
    complete?: { zones: number; cts: number },
  ): Requirements {
    const zones = new Set<string>();
    const cts = new Set<string>();
    const zoneReq = reqs.get(LabelZone);
    const ctReq = reqs.get(LabelCapacityType);
    // A type whose allowed zones and capacity types are all seen adds nothing: its offerings are read only when it
    // brings a new one (a catalog's types have a dozen offerings each, and most bring nothing new).
    const spans = this.prices.spans(zoneReq, ctReq);
    let seenZones = 0;
    let seenCts = 0;
    for (const t of types) {
      if (spans) {
        const z = spans.zones[t.index] as number;
        const c = spans.capacityTypes[t.index] as number;
        if ((z & ~seenZones) === 0 && (c & ~seenCts) === 0) continue;
        seenZones |= z;
        seenCts |= c;
      }
      for (const o of t.offerings) {
        if ((!zoneReq || zoneReq.has(o.zone)) && (!ctReq || ctReq.has(o.capacityType))) {
          zones.add(o.zone);
          cts.add(o.capacityType);
        }
      }
      if (complete && zones.size === complete.zones && cts.size === complete.cts) break;
    }
    const out = reqs.clone();
    out.add(Requirement.of(LabelZone, 'In', [...zones]));
    out.add(Requirement.of(LabelCapacityType, 'In', [...cts]));
    return out;
  }

  /** The pool's requirements with the shape's added. */
  merged(shape: PodShape): Requirements {
    let m = this.mergedCache.get(shape.classId);
    if (!m) {
      m = this.requirements.clone().addAll(shape.requirements);
      this.mergedCache.set(shape.classId, m);
    }
    return m;
  }

  /** The pool's types that match the shape's requirements, and those that also hold one such pod. */
  typesFor(shape: PodShape): { compatible: TypeOption[]; fitting: TypeOption[] } {
    let hit = this.typesCache.get(shape.id);
    if (!hit) {
      // Compatibility reads the requirements alone: pods whose requests all differ share a few requirement sets.
      let compatible = this.compatibleByClass.get(shape.classId);
      if (!compatible) {
        const key = shape.requirements.toString();
        compatible = this.compatibleByReqs.get(key);
        if (!compatible) {
          const merged = this.merged(shape);
          compatible = this.types.filter((o) => typeCompatible(o, merged));
          this.compatibleByReqs.set(key, compatible);
        }
        this.compatibleByClass.set(shape.classId, compatible);
      }
      hit = { compatible, fitting: this.fittingOf(shape, compatible) };
      this.typesCache.set(shape.id, hit);
    }
    return hit;
  }

  /**
   * The compatible types that hold one pod of the shape. Shapes of a class mostly get the same answer (every type, for
   * small pods), and equal answers are one array: with every request distinct, a list per shape was ~20 MB the solve
   * kept, and the caches keyed by the list (`candidates`, `fittingOfferingRequirements`) missed for every pod
   * (docs/performance.md, "Distinct requests: cells and fitting types"). The answer is found by the requests' ranks
   * (fitting.ts).
   */
  private fittingOf(shape: PodShape, compatible: TypeOption[]): TypeOption[] {
    let lists = this.fittingByList.get(compatible);
    if (!lists) {
      lists = new FittingLists(compatible, shape.requests.length);
      this.fittingByList.set(compatible, lists);
    }
    return lists.of(shape.requests);
  }

  /** offeringRequirements over the types that hold one pod of the shape (typesFor's `fitting`), kept per class and
   * fitting list: shapes of a class with the same list (fittingOf) get the same answer. */
  fittingOfferingRequirements(shape: PodShape): Requirements {
    const { compatible, fitting } = this.typesFor(shape);
    let byList = this.offeringReqByClass.get(shape.classId);
    if (!byList) {
      byList = new Map();
      this.offeringReqByClass.set(shape.classId, byList);
    }
    let hit = byList.get(fitting);
    if (!hit) {
      // What every compatible type offers bounds what the fitting ones do: the scan stops once it has all of it.
      let complete = this.offeringSpanByClass.get(shape.classId);
      if (!complete) {
        const all = this.offeringRequirements(compatible, this.merged(shape));
        complete = { zones: all.get(LabelZone)?.values.size ?? 0, cts: all.get(LabelCapacityType)?.values.size ?? 0 };
        this.offeringSpanByClass.set(shape.classId, complete);
      }
      hit = this.offeringRequirements(fitting, this.merged(shape), complete);
      byList.set(fitting, hit);
    }
    return hit;
  }

  /** The options (the pool's types) that meet the requirements, in their order. */
  compatibleOptions(options: readonly TypeOption[], reqs: Requirements): TypeOption[] {
    const key = reqs.toString();
    let row = this.compatibleByText.get(key);
    if (!row) {
      row = new Int8Array(this.types.length);
      this.compatibleByText.set(key, row);
    }
    const known = row;
    return options.filter((o) => {
      let v = known[o.index] as number;
      if (v === 0) {
        v = typeCompatible(o, reqs) ? 1 : 2;
        known[o.index] = v;
      }
      return v === 1;
    });
  }

  /** Whether pods of this shape could share a node of this type from this pool (for target scoring and fills). */
  canShare(shape: PodShape, o: TypeOption): boolean {
    let row = this.shareCache.get(shape.classId);
    if (!row) {
      row = new Int8Array(this.types.length);
      this.shareCache.set(shape.classId, row);
    }
    const hit = row[o.index];
    if (hit) return hit === 1;
    const ok =
      !this.untoleratedTaint(shape.classId, shape.tolerations) &&
      !this.incompatibility(shape.classId, shape.requirements) &&
      typeCompatible(o, this.merged(shape));
    row[o.index] = ok ? 1 : 2;
    return ok;
  }
}
