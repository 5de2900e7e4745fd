// Per-pod data computed once per solve. Pods with the same namespace, labels, spec and volume topology share one
// PodBase, so replicas cost one computation; each relaxation level of a base is a PodShape, made on first need.
import type { Container, NodeSelectorTerm, Pod, Toleration } from '../api/kube';
import type { ResourceList } from '../api/resources';
import { type HostPort, podHostPorts } from './hostports';
import { restrictedLabelReason } from './labels';
import { NodeFilter } from './nodefilter';
import { initialView, matchableTerms, matchesNoNode, type PodView, relax } from './preferences';
import { Requirement } from './requirement';
import { Requirements } from './requirements';
import { podRequests, type ResourceIndex } from './resources';
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
  requests: Float64Array;
  hostPorts: HostPort[];
  volumeRequirements: Requirements;
  /** Set when the pod can never be scheduled as written (invalid or restricted input). */
  invalid?: string;
  levels: PodShape[];
  views: PodView[];
  /** The first base whose pods differ from these only in their requests: every shape is derived from its shapes. */
  template?: PodBase;
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

const TOLERATE_PREFER_NO_SCHEDULE: Toleration = { operator: 'Exists', effect: 'PreferNoSchedule' };
/** What a pod without volumes gets from the volume index; only ever read. */
const NO_VOLUME_TOPOLOGY: VolumeTopology = { requirements: /* @__PURE__ */ new Requirements(), warnings: [], key: '' };
/** A base's requests until every resource name is known (`finalizeVectors` replaces it); only ever read. */
const NO_REQUESTS = /* @__PURE__ */ new Float64Array(0);

/** The spec as the base's signature reads it: without the node name and the volumes (their topology is keyed
 * apart). Specs without either are read as they are, which is the same text without copying the spec. */
function signatureSpec(spec: Pod['spec']): Partial<Pod['spec']> {
  if (spec.nodeName === undefined && spec.volumes === undefined) return spec;
  const { nodeName: _n, volumes: _v, ...rest } = spec;
  return rest;
}

/**
 * What a base reads from its pod's spec and volume topology alone, never its namespace or labels: bases whose pods
 * differ only in labels (a deployment's pods across label values, Karpenter's benchmark) share it, so requests,
 * views and node requirements are worked out once per spec (docs/performance.md, "Setup").
 */
interface SpecFacts {
  requestList: ResourceList;
  hostPorts: HostPort[];
  volumeRequirements: Requirements;
  invalid: string | undefined;
  /** The relaxation views, shared by the bases (a view depends on the spec only). */
  views: PodView[];
  /** Per relaxation level: the view's node requirements and tolerations (read-only once built). */
  levels: LevelFacts[];
  /** The first base of this spec (most specs have one: replicas share namespace and labels). */
  first?: PodBase;
  /** The bases of this spec after the first, by identity (namespace and labels). */
  more?: Map<number, PodBase>;
  /** The spread constraints' node filter (spreadNodeFilter), once asked for. */
  spreadFilter?: NodeFilter | undefined;
}

interface LevelFacts {
  requirements: Requirements;
  strictRequirements: Requirements;
  tolerations: Toleration[];
}

export class PodShapes {
  /** Spec facts by the spec part of a base's signature. */
  private readonly specs = new Map<string, SpecFacts>();
  private readonly factsOf = new WeakMap<PodBase, SpecFacts>();
  /** The first valid base by its identity and spec without requests (the template of later bases with other requests). */
  private readonly templates = new Map<string, PodBase>();
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

  /** The base for a pod, building it (and registering its topology groups) on first sight of its signature. */
  baseOf(pod: Pod): PodBase {
    // Most pods have no volumes: they share one empty answer instead of building one each (docs/performance.md).
    const vol = pod.spec.volumes?.length ? this.volumes.requirementsFor(pod) : NO_VOLUME_TOPOLOGY;
    for (const w of vol.warnings) if (!this.warnings.includes(w)) this.warnings.push(w);
    const identity = this.identityOf(pod);
    // The signature is the pair (identity, spec text): two short keys, not one long concatenation to hash per pod.
    // Most pods have no volume topology: their spec text is the key alone, an object's text, which no array's text
    // (the key of a pod with one) can equal, so no two signatures meet that did not before.
    const specKey =
      vol.key === '' && !vol.missing
        ? JSON.stringify(signatureSpec(pod.spec))
        : JSON.stringify([signatureSpec(pod.spec), vol.key, vol.missing ?? '']);
    let facts = this.specs.get(specKey);
    let shapeSig: string | undefined;
    let template: PodBase | undefined;
    if (!facts) {
      // A new spec: if it differs from a known base's only in its requests, everything but the requests is that
      // base's (docs/performance.md, Distinct requests).
      shapeSig = shapeSignature(identity, pod, vol);
      template = this.templates.get(shapeSig);
      facts = (template && this.requestFacts(pod, template)) ?? this.specFacts(pod, vol.requirements, vol.missing);
      this.specs.set(specKey, facts);
    }
    let base = basesOf(facts, identity);
    if (base) return base;
    // Pods that differ only in their requests (VPA-sized pods, per-team requests) derive their shapes from the first
    // such base instead of building them again. Only a new base pays for the second signature, so replicas cost
    // nothing more.
    shapeSig ??= shapeSignature(identity, pod, vol);
    template = facts.invalid ? undefined : (template ?? this.templates.get(shapeSig));
    base = template ? this.derive(template, pod, facts) : this.build(pod, identity, facts);
    if (!template && !base.invalid) this.templates.set(shapeSig, base);
    addBase(facts, identity, base);
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

  /**
   * The facts of a spec that differs from the template's only in its requests: the template's, with these requests.
   * Undefined when the requests do not parse (the full facts then say why).
   */
  private requestFacts(pod: Pod, template: PodBase): SpecFacts | undefined {
    const like = this.factsOf.get(template);
    if (!like || like.invalid) return undefined;
    let requestList: ResourceList;
    try {
      requestList = podRequests(pod);
    } catch {
      return undefined;
    }
    this.resources.register(requestList);
    // Views, levels and host ports read the spec without its requests, so they are shared (never changed once built).
    return {
      requestList,
      hostPorts: like.hostPorts,
      volumeRequirements: like.volumeRequirements,
      invalid: undefined,
      views: like.views,
      levels: like.levels,
    };
  }

  private specFacts(pod: Pod, volumeRequirements: Requirements, missingVolume?: string): SpecFacts {
    let requestList: ResourceList = {};
    let invalid: string | undefined = missingVolume;
    try {
      requestList = podRequests(pod);
    } catch (e) {
      invalid ??= `invalid resources: ${(e as Error).message}`;
    }
    this.resources.register(requestList);
    invalid ??= restrictedKeys(pod) ?? unmatchableAffinity(pod);
    return {
      requestList,
      hostPorts: podHostPorts(pod),
      volumeRequirements,
      invalid,
      views: [initialView(pod, this.ignorePreferences)],
      levels: [],
    };
  }

  /** A base for a pod whose spec differs from the template's only in its requests: the template's shapes with these
   * requests. */
  private derive(template: PodBase, pod: Pod, facts: SpecFacts): PodBase {
    // Written out field by field, as `build` writes a base: a spread of the template gave each of 20,000 derived bases
    // a hidden class of its own, so every read of a base's field across them was megamorphic (docs/performance.md).
    const base: PodBase = {
      baseId: this.all.length,
      identity: template.identity,
      namespace: template.namespace,
      labels: template.labels,
      sample: pod,
      requestList: facts.requestList,
      requests: NO_REQUESTS,
      hostPorts: template.hostPorts,
      volumeRequirements: template.volumeRequirements,
      levels: [],
      views: facts.views,
      template,
    };
    if (template.invalid !== undefined) base.invalid = template.invalid;
    // No entry in `factsOf`: a derived base's shapes come from its template's, which never read it. (20,000 distinct
    // pods made as many weak-map entries, which every garbage collection walks.)
    this.level(base, 0);
    return base;
  }

  private build(pod: Pod, identity: number, facts: SpecFacts): PodBase {
    const base: PodBase = {
      baseId: this.all.length,
      identity,
      namespace: pod.metadata.namespace,
      labels: pod.metadata.labels ?? {},
      sample: pod,
      requestList: facts.requestList,
      requests: NO_REQUESTS,
      hostPorts: facts.hostPorts,
      volumeRequirements: facts.volumeRequirements,
      levels: [],
      views: facts.views,
    };
    this.factsOf.set(base, facts);
    if (facts.invalid) base.invalid = facts.invalid;
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

  /** Vectors are sized once every resource name is known (after all pods and DaemonSets were read). */
  finalizeVectors(): void {
    for (const b of this.all) {
      b.requests = this.resources.vector(b.requestList);
      for (const s of b.levels) s.requests = b.requests;
    }
  }

  level(base: PodBase, n: number, anyPreferNoSchedule = true): PodShape | undefined {
    const have = base.levels[n];
    if (have) return have;
    if (n > 0 && !base.levels[n - 1]) return undefined;
    if (base.template) {
      const like = this.level(base.template, n, anyPreferNoSchedule);
      if (!like) return undefined;
      base.views[n] ??= base.template.views[n] as PodView;
      const shape: PodShape = { ...like, id: this.shapeCount++, base, baseId: base.baseId, requests: base.requests };
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
    const pod = base.sample;
    const requirements = Requirements.fromLabels(pod.spec.nodeSelector);
    const term = view.requiredTerms[0];
    if (term) requirements.addAll(termRequirements(term));
    requirements.addAll(base.volumeRequirements);
    const preferred = view.preferredNode[0];
    const strictRequirements = preferred ? requirements.clone() : requirements;
    if (preferred) requirements.addAll(termRequirements(preferred.preference));
    const tolerations = [...(pod.spec.tolerations ?? [])];
    if (view.toleratePreferNoSchedule) tolerations.push(TOLERATE_PREFER_NO_SCHEDULE);
    const built = { requirements, strictRequirements, tolerations };
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
    return {
      id: shapeId,
      classId: shapeId,
      base,
      level,
      baseId: base.baseId,
      identity: base.identity,
      namespace: base.namespace,
      labels: base.labels,
      requirements,
      strictRequirements,
      tolerations,
      requests: base.requests,
      hostPorts: base.hostPorts,
      groups,
      requiredAnti,
      perNodeLimit,
      coLocated: groups.some((g) => g.kind === 'affinity' && g.isHostname),
    };
  }
}

/**
 * Stores a base's shape for level `n`. The first goes into an array of one: storing it into the base's empty array
 * would grow that to 17 slots, and with every request distinct a base per pod kept them all (docs/performance.md,
 * "session 7").
 */
function setLevel(base: PodBase, n: number, shape: PodShape): void {
  if (n === 0 && base.levels.length === 0) base.levels = [shape];
  else base.levels[n] = shape;
}

/** The base of this spec and identity, if one was built. */
function basesOf(facts: SpecFacts, identity: number): PodBase | undefined {
  return facts.first?.identity === identity ? facts.first : facts.more?.get(identity);
}

function addBase(facts: SpecFacts, identity: number, base: PodBase): void {
  if (!facts.first) {
    facts.first = base;
    return;
  }
  facts.more ??= new Map();
  facts.more.set(identity, base);
}

/** The pod's identity and spec without the containers' resources and the overhead: equal for pods that differ only
 * in their requests. */
function shapeSignature(identity: number, pod: Pod, vol: VolumeTopology): string {
  const { containers, initContainers, overhead: _o, ...rest } = signatureSpec(pod.spec);
  return JSON.stringify([
    identity,
    rest,
    withoutResources(containers),
    withoutResources(initContainers),
    vol.key,
    vol.missing ?? '',
  ]);
}

/** The containers without their resources (what a base's shapes are built from). */
function withoutResources(containers: readonly Container[] | undefined): Omit<Container, 'resources'>[] | undefined {
  return containers?.map(({ resources: _r, ...c }) => c);
}

function termRequirements(term: NodeSelectorTerm): Requirements {
  const out = new Requirements();
  for (const e of term.matchExpressions ?? []) out.add(Requirement.of(e.key, e.operator, e.values ?? []));
  return out;
}

/**
 * The pod's nodeSelector and every required node-affinity term, whatever the relaxation level: kube-scheduler's spread
 * filter does not relax, and one filter per pod keeps one group across its levels.
 */
function spreadNodeFilter(pod: Pod): NodeFilter | undefined {
  const selector = Requirements.fromLabels(pod.spec.nodeSelector);
  const terms = matchableTerms(pod);
  if (!terms.length) return NodeFilter.of([selector]);
  return NodeFilter.of(terms.map((t) => selector.clone().addAll(termRequirements(t))));
}

/** Required node affinity whose every term is empty matches no node: kube-scheduler would never place the pod, so a
 * node launched for it would sit empty until consolidation removed it, and then be launched again. */
function unmatchableAffinity(pod: Pod): string | undefined {
  return matchesNoNode(pod)
    ? 'required node affinity has only empty nodeSelectorTerms, which match no node'
    : undefined;
}

function restrictedKeys(pod: Pod): string | undefined {
  const keys = new Set(Object.keys(pod.spec.nodeSelector ?? {}));
  const na = pod.spec.affinity?.nodeAffinity;
  for (const t of na?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const e of t.matchExpressions ?? []) keys.add(e.key);
  }
  for (const p of na?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    for (const e of p.preference.matchExpressions ?? []) keys.add(e.key);
  }
  for (const k of keys) {
    const why = restrictedLabelReason(k);
    if (why) return why;
  }
  return undefined;
}
