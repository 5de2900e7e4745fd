// Per-pod data computed once per solve. Pods with the same namespace, labels, spec and volume topology share one
// PodBase, so replicas cost one computation; each relaxation level of a base is a PodShape, made on first need.
import type { Pod, Toleration } from '../api/kube';
import type { ResourceList } from '../api/resources';
import type { HostPort } from './hostports';
import type { NodeFilter } from './nodefilter';
import { classText, requestsText } from './podtext';
import { type PodView, relax } from './preferences';
import { Requirements } from './requirements';
import { podRequests, type ResourceIndex } from './resources';
import {
  type LevelFacts,
  levelFactsOf,
  newSpecClass,
  type SpecClass,
  setTemplate,
  spreadNodeFilter,
  templateOf,
} from './specclass';
import type { Topology, TopologyShape } from './topology';
import type { TopologyGroup } from './topologygroup';
import type { VolumeIndex, VolumeTopology } from './volumes';

export interface PodBase {
  baseId: number;
  /** Equal for pods with the same namespace and labels (TopologyShape.identity). */
  identity: number;
  namespace: string;
  labels: Record<string, string>;
  sample: Pod;
  requestList: ResourceList;
  /** Why the pods' requests could not be read (then `requestList` is empty and `invalid` says so too). */
  requestError: string | undefined;
  requests: Float64Array;
  hostPorts: HostPort[];
  volumeRequirements: Requirements;
  /** Set when the pod can never be scheduled as written (invalid or restricted input). */
  invalid: string | undefined;
  /** Its shape at relaxation level 0 (made with the base); `relaxed` holds levels 1 and up, made on first need. */
  first: PodShape | undefined;
  /**
   * Level n at `n - 1`. A field for level 0 instead of an array of all levels: with every request distinct, that
   * array was two more objects per pod for the young-generation collector to copy (docs/performance.md, "Distinct
   * requests: what survives the setup").
   */
  relaxed: PodShape[];
  views: PodView[];
  /** The first base whose pods differ from these only in their requests: every shape is derived from its shapes. */
  template: PodBase | undefined;
}

export interface PodShape extends TopologyShape {
  id: number;
  /**
   * Equal for shapes that differ only in their requests (and base): pods whose specs differ in nothing but resources
   * share one template's requirements, tolerations, host ports and topology groups, so whatever is known of a shape
   * apart from its size (pool compatibility, domains, queue class) is known of the class.
   */
  classId: number;
  base: PodBase;
  level: number;
  requirements: Requirements;
  /** The requirements without the preferred node-affinity term: topology domains come from these, so a preference
   * is relaxed before a spread's skew is broken (as Karpenter does). */
  strictRequirements: Requirements;
  tolerations: Toleration[];
  requests: Float64Array;
  hostPorts: HostPort[];
  /** True when a hostname pod-affinity term ties the pod to the node of the pods it selects (nodeclaim.ts canAdd). */
  coLocated: boolean;
  /** True when a hostname spread or anti-affinity limits how many of these share a node. */
  perNodeLimit: number;
}

/** What a pod without volumes gets from the volume index; only ever read. */
const NO_VOLUME_TOPOLOGY: VolumeTopology = { requirements: /* @__PURE__ */ new Requirements(), warnings: [], key: '' };
/** A base's requests until every resource name is known (`finalizeVectors` replaces it); only ever read. */
const NO_REQUESTS = /* @__PURE__ */ new Float64Array(0);
/** A base's relaxed shapes until it has one (`setLevel` gives it an array of its own); only ever read. */
const NO_SHAPES: PodShape[] = [];

export class PodShapes {
  /** The classes by `classText`: a handful, however many requests the pods have. */
  private readonly classes = new Map<string, SpecClass>();
  /** The class of each base that was built (not derived), whose levels read the class's facts. */
  private readonly factsOf = new WeakMap<PodBase, SpecClass>();
  /** Identity numbers by namespace, then labels as text. */
  private readonly identities = new Map<string, Map<string, number>>();
  private identityCount = 0;
  readonly all: PodBase[] = [];
  private shapeCount = 0;

  constructor(
    private readonly resources: ResourceIndex,
    private readonly topology: Topology<PodShape>,
    private readonly volumes: VolumeIndex,
    private readonly warnings: string[],
    /** PreferencePolicy Ignore: pods are planned without their preferences (preferences.ts initialView). */
    private readonly ignorePreferences = false,
  ) {}

  get shapes(): number {
    return this.shapeCount;
  }

  /**
   * The base for a pod, building it (and registering its topology groups) on first sight of its identity, class and
   * requests. A pod is read as two short texts, its class (`classText`) and its requests (`requestsText`), instead of
   * its whole spec: a pod whose requests are new then costs a lookup in its class, not a second text of its spec.
   */
  baseOf(pod: Pod): PodBase {
    // Most pods have no volumes: they share one empty answer instead of building one each (docs/performance.md).
    const vol = pod.spec.volumes?.length ? this.volumes.requirementsFor(pod) : NO_VOLUME_TOPOLOGY;
    for (const w of vol.warnings) if (!this.warnings.includes(w)) this.warnings.push(w);
    const identity = this.identityOf(pod);
    const classKey = classText(pod.spec, vol);
    let cls = this.classes.get(classKey);
    if (!cls) {
      cls = newSpecClass(pod, vol, this.ignorePreferences);
      this.classes.set(classKey, cls);
    }
    const requestsKey = requestsText(pod.spec);
    const first = cls.bases.get(requestsKey);
    if (first?.identity === identity) return first;
    const more = first && cls.moreBases?.get(`${identity} ${requestsKey}`);
    if (more) return more;
    // Pods of one class with the same requests under other labels have the same request list: it is read once.
    let requestList: ResourceList = {};
    let requestError: string | undefined;
    if (first && first.requestError === undefined) requestList = first.requestList;
    else {
      try {
        requestList = podRequests(pod);
      } catch (e) {
        requestError = `invalid resources: ${(e as Error).message}`;
      }
      this.resources.register(requestList);
    }
    const invalid = cls.missing ?? requestError ?? cls.invalid;
    // Pods that differ only in their requests (VPA-sized pods, per-team requests) derive their shapes from the first
    // such base of their identity instead of building them again (docs/performance.md, "Distinct requests: per-pod
    // setup").
    const template = invalid === undefined ? templateOf(cls, identity) : undefined;
    const base = template
      ? this.derive(template, pod, requestList)
      : this.build(pod, identity, cls, requestList, invalid, requestError);
    if (!template && base.invalid === undefined) setTemplate(cls, identity, base);
    if (!first) cls.bases.set(requestsKey, base);
    else {
      cls.moreBases ??= new Map();
      cls.moreBases.set(`${identity} ${requestsKey}`, base);
    }
    this.all.push(base);
    return base;
  }

  /** The number of the pod's namespace and labels: the labels' text looked up per namespace (no array to build
   * and write per pod). Numbered in order of first sight, as one key of both would number them. */
  private identityOf(pod: Pod): number {
    const ns = pod.metadata.namespace;
    let byLabels = this.identities.get(ns);
    if (!byLabels) {
      byLabels = new Map();
      this.identities.set(ns, byLabels);
    }
    const labels = JSON.stringify(pod.metadata.labels ?? {});
    let identity = byLabels.get(labels);
    if (identity === undefined) {
      identity = this.identityCount++;
      byLabels.set(labels, identity);
    }
    return identity;
  }

  /** A base for a pod whose spec differs from the template's only in its requests: the template's shapes with these
   * requests. */
  private derive(template: PodBase, pod: Pod, requestList: ResourceList): PodBase {
    // Written out field by field, as `build` writes a base: a spread of the template gave each of 20,000 derived bases
    // a hidden class of its own, so every read of a base's field across them was megamorphic (docs/performance.md).
    const base: PodBase = {
      baseId: this.all.length,
      identity: template.identity,
      namespace: template.namespace,
      labels: template.labels,
      sample: pod,
      requestList,
      requestError: undefined,
      requests: NO_REQUESTS,
      hostPorts: template.hostPorts,
      volumeRequirements: template.volumeRequirements,
      invalid: undefined,
      first: undefined,
      relaxed: NO_SHAPES,
      views: template.views,
      template,
    };
    // No entry in `factsOf`: a derived base's shapes come from its template's, which never read it. (20,000 distinct
    // pods made as many weak-map entries, which every garbage collection walks.)
    this.level(base, 0);
    return base;
  }

  private build(
    pod: Pod,
    identity: number,
    cls: SpecClass,
    requestList: ResourceList,
    invalid: string | undefined,
    requestError: string | undefined,
  ): PodBase {
    const base: PodBase = {
      baseId: this.all.length,
      identity,
      namespace: pod.metadata.namespace,
      labels: pod.metadata.labels ?? {},
      sample: pod,
      requestList,
      requestError,
      requests: NO_REQUESTS,
      hostPorts: cls.hostPorts,
      volumeRequirements: cls.volumeRequirements,
      invalid,
      first: undefined,
      relaxed: NO_SHAPES,
      views: cls.views,
      template: undefined,
    };
    this.factsOf.set(base, cls);
    // Register every group the pod could ever need now, so counts are complete before anything is placed.
    if (!base.invalid) {
      try {
        this.level(base, 0);
      } catch (e) {
        base.invalid = `invalid scheduling constraint: ${(e as Error).message}`;
      }
    }
    return base;
  }

  /**
   * Vectors are sized once every resource name is known (after all pods and DaemonSets were read). They are views of
   * one buffer: a Float64Array of its own per base cost two more objects each (its buffer and its elements), which
   * with every request distinct the young-generation collector copied for every pod (docs/performance.md).
   */
  finalizeVectors(): void {
    const dims = this.resources.names.length;
    const slab = new Float64Array(this.all.length * dims);
    for (let i = 0; i < this.all.length; i++) {
      const b = this.all[i] as PodBase;
      const v = slab.subarray(i * dims, (i + 1) * dims);
      this.resources.fill(v, b.requestList);
      b.requests = v;
      if (b.first) b.first.requests = v;
      for (const s of b.relaxed) s.requests = v;
    }
  }

  level(base: PodBase, n: number, anyPreferNoSchedule = true): PodShape | undefined {
    const have = shapeAt(base, n);
    if (have) return have;
    if (n > 0 && !shapeAt(base, n - 1)) return undefined;
    if (base.template) {
      const like = this.level(base.template, n, anyPreferNoSchedule);
      if (!like) return undefined;
      base.views[n] ??= base.template.views[n] as PodView;
      const shape = shapeOf(like, this.shapeCount++, like.classId, base, base.requests);
      setLevel(base, n, shape);
      return shape;
    }
    let view = base.views[n];
    if (!view) {
      const prev = base.views[n - 1];
      view = prev ? relax(prev, anyPreferNoSchedule) : undefined;
      if (!view) return undefined;
      base.views[n] = view;
    }
    const shape = this.shapeFor(base, view, n);
    setLevel(base, n, shape);
    return shape;
  }

  relaxation(base: PodBase, n: number): string | undefined {
    return base.views[n]?.relaxed;
  }

  /** The level's node requirements and tolerations, built once per spec (they never change once built). */
  private levelFacts(base: PodBase, view: PodView, level: number): LevelFacts {
    const facts = this.factsOf.get(base);
    const have = facts?.levels[level];
    if (have) return have;
    const built = levelFactsOf(base.sample, base.volumeRequirements, view);
    if (facts) facts.levels[level] = built;
    return built;
  }

  private spreadFilter(base: PodBase): NodeFilter | undefined {
    const facts = this.factsOf.get(base);
    if (!facts) return spreadNodeFilter(base.sample);
    if (!('spreadFilter' in facts)) facts.spreadFilter = spreadNodeFilter(base.sample);
    return facts.spreadFilter;
  }

  private shapeFor(base: PodBase, view: PodView, level: number): PodShape {
    const pod = base.sample;
    const { requirements, strictRequirements, tolerations } = this.levelFacts(base, view, level);

    const groups: TopologyGroup[] = [];
    const requiredAnti: TopologyGroup[] = [];
    const id = { namespace: base.namespace, labels: base.labels };
    const own = pod.spec.tolerations ?? [];
    const spreads = pod.spec.topologySpreadConstraints ?? [];
    const affinity = spreads.length > 0 ? this.spreadFilter(base) : undefined;
    for (const c of spreads) {
      if (c.whenUnsatisfiable !== 'ScheduleAnyway') groups.push(this.topology.spreadGroup(id, c, own, affinity));
    }
    for (const c of view.scheduleAnyway) groups.push(this.topology.spreadGroup(id, c, own, affinity));
    const a = pod.spec.affinity;
    for (const t of a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
      groups.push(this.topology.affinityGroup(id, t, 'affinity', true));
    }
    for (const t of view.preferredAffinity)
      groups.push(this.topology.affinityGroup(id, t.podAffinityTerm, 'affinity', false));
    for (const t of a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
      const g = this.topology.affinityGroup(id, t, 'antiAffinity', true);
      groups.push(g);
      requiredAnti.push(g);
    }
    for (const t of view.preferredAntiAffinity) {
      groups.push(this.topology.affinityGroup(id, t.podAffinityTerm, 'antiAffinity', false));
    }
    let perNodeLimit = Number.POSITIVE_INFINITY;
    for (const g of groups) {
      if (!g.isHostname || !g.selects(id, base.identity)) continue;
      if (g.kind === 'antiAffinity') perNodeLimit = 1;
      else if (g.kind === 'spread') perNodeLimit = Math.min(perNodeLimit, g.maxSkew);
    }
    const shapeId = this.shapeCount++;
    const facts = {
      level,
      requirements,
      strictRequirements,
      tolerations,
      hostPorts: base.hostPorts,
      groups,
      requiredAnti,
      perNodeLimit,
      coLocated: groups.some((g) => g.kind === 'affinity' && g.isHostname),
    };
    return shapeOf(facts, shapeId, shapeId, base, base.requests);
  }
}

/** The shape with other requests (a queue cell's representative), of the same hidden class as every shape. */
export function withRequests(shape: PodShape, requests: Float64Array): PodShape {
  return shapeOf(shape, shape.id, shape.classId, shape.base, requests);
}

/** What a shape shares with the shapes derived from it: all but its id, base and requests. */
type ShapeFacts = Pick<
  PodShape,
  | 'level'
  | 'requirements'
  | 'strictRequirements'
  | 'tolerations'
  | 'hostPorts'
  | 'groups'
  | 'requiredAnti'
  | 'perNodeLimit'
  | 'coLocated'
>;

/**
 * A shape, written field by field in one order: built and derived shapes then share one hidden class (a spread of the
 * template's shape gave derived ones another), so the queue's and the fill's reads of a shape stay monomorphic.
 */
function shapeOf(facts: ShapeFacts, id: number, classId: number, base: PodBase, requests: Float64Array): PodShape {
  return {
    id,
    classId,
    base,
    level: facts.level,
    baseId: base.baseId,
    identity: base.identity,
    namespace: base.namespace,
    labels: base.labels,
    requirements: facts.requirements,
    strictRequirements: facts.strictRequirements,
    tolerations: facts.tolerations,
    requests,
    hostPorts: facts.hostPorts,
    groups: facts.groups,
    requiredAnti: facts.requiredAnti,
    perNodeLimit: facts.perNodeLimit,
    coLocated: facts.coLocated,
  };
}

/** A base's shape at level `n`, if made. */
function shapeAt(base: PodBase, n: number): PodShape | undefined {
  return n === 0 ? base.first : base.relaxed[n - 1];
}

/** Stores a base's shape for level `n` (levels are made in order, so level n - 1 is there). */
function setLevel(base: PodBase, n: number, shape: PodShape): void {
  if (n === 0) base.first = shape;
  else if (base.relaxed === NO_SHAPES) base.relaxed = [shape];
  else base.relaxed[n - 1] = shape;
}
