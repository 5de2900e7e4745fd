// Topology state for one solve: every spread/affinity/anti-affinity group, and the rules that turn a group's counts
// into a requirement on the node a pod is about to join. A new NodeClaim may still span several zones; adding a
// constrained pod pins it to one domain, so the counts stay exact.
import type { LabelSelector, PodAffinityTerm, Taint, Toleration, TopologySpreadConstraint } from '../api/kube';
import type { NodeFilter } from './nodefilter';
import { Requirement } from './requirement';
import type { Requirements } from './requirements';
import { selectorKey } from './selectors';
import { type GroupKind, type PodIdentity, TopologyGroup } from './topologygroup';

export interface TopologyShape extends PodIdentity {
  /** Identity shared by every relaxation level of one pod shape. */
  baseId: number;
  /**
   * Equal for pods with the same namespace and labels, which is all a selector reads: what selects a pod is cached per
   * identity, so pods whose requests all differ but whose labels repeat share the answers.
   */
  identity: number;
  /** Groups the pod must satisfy at its current relaxation level. */
  groups: readonly TopologyGroup[];
  /** Anti-affinity groups the pod owns as required terms (recorded for the inverse rule). */
  requiredAnti: readonly TopologyGroup[];
}

/**
 * The domains a pod could land in for a key. `honorAffinity` false: every domain, whatever the pod's node affinity;
 * `honorTaints` true: only domains of NodePools and nodes whose NoSchedule/NoExecute taints the pod tolerates.
 */
export interface TopologyDomains<S extends TopologyShape> {
  of(shape: S, key: string, honorAffinity: boolean, honorTaints: boolean): readonly string[];
}

/**
 * A hostname count that bars a pod from every node where it has reached `limit`: the pod's own hostname
 * anti-affinity or spread, or another pod's anti-affinity that selects it. Counts only grow, so a barred node stays
 * barred (Topology.hostnameBars).
 */
export interface HostnameBar {
  readonly counts: ReadonlyMap<string, number>;
  readonly limit: number;
}

export type TopologyCheck =
  | { ok: true; requirements: Requirement[] }
  /** `permanent`: counts only grow, so this node will never satisfy the constraint for this pod shape. */
  | { ok: false; reason: string; permanent?: boolean };

export class Topology<S extends TopologyShape = TopologyShape> {
  private readonly groups = new Map<string, TopologyGroup>();
  private readonly selectedByCache = new Map<number, TopologyGroup[]>();
  private readonly inverseCache = new Map<number, TopologyGroup[]>();
  private readonly antiGroups: TopologyGroup[] = [];

  constructor(
    private readonly namespaceLabels: Map<string, Record<string, string>>,
    private readonly domains: TopologyDomains<S>,
  ) {}

  get size(): number {
    return this.groups.size;
  }

  /**
   * `tolerations` and `nodeAffinity`: the owning pod's. With `nodeTaintsPolicy: Honor` the tolerations, and with
   * `nodeAffinityPolicy: Honor` the node affinity, decide which nodes are domains and count, so they are part of the
   * group's identity; pods differing only in them then keep separate counts. Without node affinity the identity is
   * the one Ignore has, so those groups stay shared.
   */
  spreadGroup(
    pod: PodIdentity,
    c: TopologySpreadConstraint,
    tolerations: readonly Toleration[] = [],
    nodeAffinity?: NodeFilter,
  ): TopologyGroup {
    let selector = c.labelSelector;
    if (c.matchLabelKeys?.length) selector = withLabelKeys(selector, c.matchLabelKeys, pod.labels, 'In');
    const minDomains = c.minDomains;
    const honor = c.nodeAffinityPolicy !== 'Ignore';
    const taintsOf = c.nodeTaintsPolicy === 'Honor' ? tolerations : undefined;
    const taintsKey = taintsOf ? JSON.stringify(taintsOf) : 'ignore';
    const affinityOf = honor ? nodeAffinity : undefined;
    const ns = new Set([pod.namespace]);
    let id = `spread|${c.topologyKey}|${selectorKey(selector)}|${pod.namespace}|${c.maxSkew}|${minDomains ?? ''}|${honor}|${taintsKey}`;
    if (affinityOf) id += `|${affinityOf.key}`;
    return this.group(id, 'spread', c.topologyKey, selector, ns, c.maxSkew, minDomains, honor, taintsOf, affinityOf);
  }

  affinityGroup(pod: PodIdentity, term: PodAffinityTerm, kind: 'affinity' | 'antiAffinity', required: boolean) {
    let selector = term.labelSelector;
    if (term.matchLabelKeys?.length) selector = withLabelKeys(selector, term.matchLabelKeys, pod.labels, 'In');
    if (term.mismatchLabelKeys?.length) selector = withLabelKeys(selector, term.mismatchLabelKeys, pod.labels, 'NotIn');
    const ns = this.namespacesFor(pod, term);
    const nsKey = ns ? [...ns].sort().join(',') : '*';
    const id = `${kind}|${required}|${term.topologyKey}|${selectorKey(selector)}|${nsKey}`;
    const g = this.group(id, kind, term.topologyKey, selector, ns);
    if (kind === 'antiAffinity' && required && !this.antiGroups.includes(g)) this.antiGroups.push(g);
    return g;
  }

  private group(
    id: string,
    kind: GroupKind,
    key: string,
    selector: LabelSelector | undefined,
    ns: ReadonlySet<string> | undefined,
    maxSkew?: number,
    minDomains?: number,
    honor?: boolean,
    honorTaintsOf?: readonly Toleration[],
    honorAffinityOf?: NodeFilter,
  ): TopologyGroup {
    let g = this.groups.get(id);
    if (!g) {
      g = new TopologyGroup(
        this.groups.size,
        kind,
        key,
        selector,
        ns,
        maxSkew,
        minDomains,
        honor,
        honorTaintsOf,
        honorAffinityOf,
      );
      this.groups.set(id, g);
      this.selectedByCache.clear();
      this.inverseCache.clear();
    }
    return g;
  }

  private namespacesFor(pod: PodIdentity, term: PodAffinityTerm): ReadonlySet<string> | undefined {
    const sel = term.namespaceSelector;
    if (sel && !sel.matchLabels && !sel.matchExpressions?.length) return undefined;
    const out = new Set(term.namespaces ?? []);
    if (sel) {
      for (const [name, labels] of this.namespaceLabels) {
        if (new TopologyGroup(0, 'affinity', '', sel, undefined).selects({ namespace: name, labels })) out.add(name);
      }
    }
    if (!sel && out.size === 0) out.add(pod.namespace);
    return out;
  }

  /** Groups whose selector matches the pod: it counts toward them wherever it lands. */
  selectedBy(shape: PodIdentity & { identity: number }): TopologyGroup[] {
    let hit = this.selectedByCache.get(shape.identity);
    if (!hit) {
      hit = [];
      for (const g of this.groups.values()) if (g.selects(shape, shape.identity)) hit.push(g);
      this.selectedByCache.set(shape.identity, hit);
    }
    return hit;
  }

  /** Required anti-affinity groups (of other pods) that select this pod: it must avoid their owners' domains. */
  private inverseOf(shape: PodIdentity & { identity: number }): TopologyGroup[] {
    let hit = this.inverseCache.get(shape.identity);
    if (!hit) {
      hit = this.antiGroups.filter((g) => g.selects(shape, shape.identity));
      this.inverseCache.set(shape.identity, hit);
    }
    return hit;
  }

  /**
   * The hostname counts that bar a pod of this shape from a node for good, the same ones `check` reports as permanent
   * failures: a node holding a pod its hostname anti-affinity selects, a node at its hostname spread's maxSkew, and a
   * node holding an owner of another pod's hostname anti-affinity that selects it. Empty when no such rule applies.
   */
  hostnameBars(shape: S): HostnameBar[] {
    const bars: HostnameBar[] = [];
    const groups = shape.groups;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] as TopologyGroup;
      if (!g.isHostname) continue;
      if (g.kind === 'antiAffinity') bars.push({ counts: g.counts, limit: 1 });
      else if (g.kind === 'spread')
        bars.push({ counts: g.counts, limit: g.maxSkew + 1 - (g.selects(shape, shape.identity) ? 1 : 0) });
    }
    const inverse = this.inverseOf(shape);
    for (let i = 0; i < inverse.length; i++) {
      const g = inverse[i] as TopologyGroup;
      if (g.isHostname) bars.push({ counts: g.owners, limit: 1 });
    }
    return bars;
  }

  /**
   * What joining a bin requires of it: one pinned domain per constrained key, or why no domain works. `bin` gives the
   * bin's current requirement per key (a node: its label; a claim: what it can still become).
   */
  check(shape: S, bin: Requirements, hostname: string): TopologyCheck {
    const inverse = this.inverseOf(shape);
    if (shape.groups.length === 0 && inverse.length === 0) return NO_REQUIREMENTS;
    // Pinned requirements stay in a short array: a pod rarely constrains more than one or two keys.
    let pinned: Requirement[] | undefined;
    // Indexed loops here and in chooseDomain: most checks run before they are optimized, where `for…of` calls the
    // iterator and allocates a result per element (docs/performance.md, "The cold 5k rows").
    const groups = shape.groups;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i] as TopologyGroup;
      if (g.isHostname) {
        const why = this.hostnameCheck(g, shape, hostname);
        if (why) return { ok: false, reason: why, permanent: g.kind !== 'affinity' };
        continue;
      }
      const binReq = currentRequirement(pinned, bin, g.key);
      if (!binReq) return { ok: false, reason: `${g.describe()}: the node has no ${g.key} label` };
      const spread = g.kind === 'spread';
      const domains = this.domains.of(shape, g.key, !spread || g.honorAffinity, spread && g.honorTaints);
      const chosen = this.chooseDomain(g, shape, domains, binReq);
      if (chosen === undefined) return new NoDomain(g, domains);
      if (binReq.complement || binReq.values.size !== 1) pinned = pin(pinned, Requirement.of(g.key, 'In', [chosen]));
    }
    for (const g of inverse) {
      if (g.owners.size === 0) continue;
      if (g.isHostname) {
        if ((g.owners.get(hostname) ?? 0) > 0) {
          return { ok: false, reason: `an existing pod's ${g.describe()} forbids this node`, permanent: true };
        }
        continue;
      }
      const binReq = currentRequirement(pinned, bin, g.key);
      if (!binReq) continue;
      const forbidden: string[] = [];
      for (const [d, n] of g.owners) if (n > 0 && binReq.has(d)) forbidden.push(d);
      if (forbidden.length === 0) continue;
      const allowed = binReq.intersect(Requirement.of(g.key, 'NotIn', forbidden));
      if (allowed.size === 0) {
        return { ok: false, reason: `${g.describe()} of pods in ${forbidden.sort().join(', ')} forbids them` };
      }
      pinned = pin(pinned, allowed);
    }
    return pinned ? { ok: true, requirements: pinned } : NO_REQUIREMENTS;
  }

  private hostnameCheck(g: TopologyGroup, shape: TopologyShape, hostname: string): string | undefined {
    const here = g.count(hostname);
    if (g.kind === 'spread') {
      const self = g.selects(shape, shape.identity) ? 1 : 0;
      // A new node is always possible, so the global minimum on hostname is zero (as in Karpenter).
      return here + self > g.maxSkew ? `${g.describe()}: this node already has ${here} matching pods` : undefined;
    }
    if (g.kind === 'antiAffinity') {
      return here > 0 ? `${g.describe()}: this node already runs a matching pod` : undefined;
    }
    if (here > 0) return undefined;
    for (const n of g.counts.values()) if (n > 0) return `${g.describe()}: no matching pod on this node`;
    return g.selects(shape, shape.identity) ? undefined : `${g.describe()}: no pod matches the affinity term yet`;
  }

  private chooseDomain(
    g: TopologyGroup,
    shape: TopologyShape,
    domains: readonly string[],
    binReq: Requirement,
  ): string | undefined {
    const n = domains.length;
    if (g.kind === 'spread') {
      if (n === 0) return undefined;
      let min = Number.POSITIVE_INFINITY;
      for (let i = 0; i < n; i++) min = Math.min(min, g.count(domains[i] as string));
      if (g.minDomains !== undefined && n < g.minDomains) min = 0;
      const self = g.selects(shape, shape.identity) ? 1 : 0;
      let best: string | undefined;
      let bestCount = Number.POSITIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        const d = domains[i] as string;
        if (!binReq.has(d)) continue;
        const c = g.count(d) + self;
        if (c - min <= g.maxSkew && c < bestCount) {
          best = d;
          bestCount = c;
        }
      }
      return best;
    }
    if (g.kind === 'antiAffinity') {
      for (let i = 0; i < n; i++) {
        const d = domains[i] as string;
        if (g.count(d) === 0 && binReq.has(d)) return d;
      }
      return undefined;
    }
    let any = false;
    for (let i = 0; i < n; i++) {
      const d = domains[i] as string;
      if (g.count(d) > 0) {
        any = true;
        if (binReq.has(d)) return d;
      }
    }
    if (any) return undefined;
    // Bootstrap: no domain the pod may use holds a match (matches elsewhere cannot help it) and the pod selects
    // itself, so any of its domains will do; the next ones follow it.
    if (!g.selects(shape, shape.identity)) return undefined;
    for (let i = 0; i < n; i++) {
      const d = domains[i] as string;
      if (binReq.has(d)) return d;
    }
    return undefined;
  }

  /**
   * A claim whose domain for some key just became known: count the pods already on it, which could not be counted
   * while the domain was open. `taints`: the claim's. Node affinity is judged on `after`, now and once (see
   * NodeFilter.admits).
   */
  recordPinned(
    shapes: readonly TopologyShape[],
    before: Requirements,
    after: Requirements,
    taints: readonly Taint[],
  ): void {
    if (shapes.length === 0) return;
    for (const r of after.values()) {
      const d = single(r);
      if (d === undefined || single(before.get(r.key)) !== undefined) continue;
      for (const s of shapes) {
        for (const g of this.selectedBy(s)) {
          if (g.key === r.key && !g.isHostname && g.countsOn(taints, after, true)) g.record(d);
        }
      }
    }
  }

  /**
   * Counts a placed pod into every group that selects it (unless the group honours taints the bin has and its
   * owners do not tolerate, or node affinity the bin does not meet), and records the domains of its anti-affinity
   * terms. `claim`: the bin is a NodeClaim of this solve, whose requirements may still narrow.
   */
  record(shape: TopologyShape, bin: Requirements, hostname: string, taints: readonly Taint[], claim: boolean): void {
    const selected = this.selectedBy(shape);
    for (let i = 0; i < selected.length; i++) {
      const g = selected[i] as TopologyGroup;
      const d = g.isHostname ? hostname : single(bin.get(g.key));
      if (d !== undefined && g.countsOn(taints, bin, claim)) g.record(d);
    }
    for (const g of shape.requiredAnti) {
      if (g.isHostname) g.recordOwner(hostname);
      else {
        const r = bin.get(g.key);
        if (r && !r.complement) for (const d of r.values) g.recordOwner(d);
      }
    }
  }
}

const NO_REQUIREMENTS: TopologyCheck = { ok: true, requirements: [] };

/**
 * Why no domain works, written when read: a scan of the planned claims turns pods away thousands of times and
 * reads none of the reasons (docs/performance.md, "The catalog-mixed-5k row"). Readers read it at once, so the
 * counts it lists are those of the check. A class rather than an object literal with a getter: such a literal is
 * built by a runtime call with a new closure each time, 7,049 times in catalog-mixed-5k (docs/performance.md, "The
 * cold 5k rows").
 */
class NoDomain {
  readonly ok = false as const;
  constructor(
    private readonly g: TopologyGroup,
    private readonly domains: readonly string[],
  ) {}

  get reason(): string {
    const { g, domains } = this;
    if (domains.length === 0) return `${g.describe()}: no eligible ${g.key} domain`;
    const counts = domains.map((d) => `${d}=${g.count(d)}`).join(', ');
    return `${g.describe()} cannot be satisfied (counts: ${counts})`;
  }
}

function currentRequirement(
  pinned: Requirement[] | undefined,
  bin: Requirements,
  key: string,
): Requirement | undefined {
  if (pinned) for (const r of pinned) if (r.key === key) return r;
  return bin.get(key);
}

function pin(pinned: Requirement[] | undefined, r: Requirement): Requirement[] {
  const out = pinned ?? [];
  const i = out.findIndex((x) => x.key === r.key);
  if (i >= 0) out[i] = r;
  else out.push(r);
  return out;
}

function single(r: Requirement | undefined): string | undefined {
  if (!r || r.complement || r.values.size !== 1) return undefined;
  return r.values.values().next().value as string;
}

function withLabelKeys(
  selector: LabelSelector | undefined,
  keys: readonly string[],
  labels: Record<string, string>,
  operator: 'In' | 'NotIn',
): LabelSelector {
  const extra = keys
    .filter((k) => labels[k] !== undefined)
    .map((k) => ({ key: k, operator, values: [labels[k] as string] }));
  return { ...selector, matchExpressions: [...(selector?.matchExpressions ?? []), ...extra] };
}
