// One topology constraint shared by every pod that declares it: a spread, an affinity or an anti-affinity term over
// one label key. It counts, per domain, the pods its selector matches, and for anti-affinity also the domains that
// hold its owners (so pods it selects can keep away from them: the inverse rule).

import type { LabelSelector, Taint, Toleration } from '../api/kube';
import { LabelHostname } from '../api/labels';
import type { NodeFilter } from './nodefilter';
import type { Requirements } from './requirements';
import { matchesSelector } from './selectors';
import { toleratesHardTaints } from './taints';

export type GroupKind = 'spread' | 'affinity' | 'antiAffinity';

export interface PodIdentity {
  namespace: string;
  labels: Record<string, string>;
}

export class TopologyGroup {
  readonly counts = new Map<string, number>();
  /** Anti-affinity only: domains that hold pods owning this term. */
  readonly owners = new Map<string, number>();
  private readonly selectsCache = new Map<number, boolean>();
  /** Whether the key is the node's hostname: a field, not a getter, as every topology check reads it per group and
   * most of those run before the check is optimized (docs/performance.md, "The cold 5k rows"). */
  readonly isHostname: boolean;

  constructor(
    readonly id: number,
    readonly kind: GroupKind,
    readonly key: string,
    readonly selector: LabelSelector | undefined,
    /** Namespaces whose pods count; undefined means all. */
    readonly namespaces: ReadonlySet<string> | undefined,
    readonly maxSkew = 1,
    readonly minDomains?: number,
    readonly honorAffinity = true,
    /**
     * Spread with `nodeTaintsPolicy: Honor`: the tolerations of the pods that own it. Only nodes whose taints these
     * tolerate are domains and count; undefined when taints are ignored (the default).
     */
    readonly honorTaintsOf?: readonly Toleration[],
    /**
     * Spread with `nodeAffinityPolicy: Honor` (the default) whose owners constrain node labels: only pods on nodes
     * and claims their node affinity admits count; undefined when every node counts.
     */
    readonly honorAffinityOf?: NodeFilter,
  ) {
    this.isHostname = key === LabelHostname;
  }

  /** `cacheId`: equal for pods with the same namespace and labels (TopologyShape.identity). */
  selects(pod: PodIdentity, cacheId?: number): boolean {
    if (cacheId !== undefined) {
      const hit = this.selectsCache.get(cacheId);
      if (hit !== undefined) return hit;
    }
    const ok = (!this.namespaces || this.namespaces.has(pod.namespace)) && matchesSelector(this.selector, pod.labels);
    if (cacheId !== undefined) this.selectsCache.set(cacheId, ok);
    return ok;
  }

  get honorTaints(): boolean {
    return this.honorTaintsOf !== undefined;
  }

  /** Whether pods on a bin with these taints and requirements (`claim`: a NodeClaim's) count toward this group. */
  countsOn(taints: readonly Taint[], bin: Requirements, claim: boolean): boolean {
    if (this.honorTaintsOf && taints.length > 0 && !toleratesHardTaints(taints, this.honorTaintsOf)) return false;
    return !this.honorAffinityOf || this.honorAffinityOf.admits(bin, claim);
  }

  count(domain: string): number {
    return this.counts.get(domain) ?? 0;
  }

  record(domain: string): void {
    this.counts.set(domain, (this.counts.get(domain) ?? 0) + 1);
  }

  recordOwner(domain: string): void {
    this.owners.set(domain, (this.owners.get(domain) ?? 0) + 1);
  }

  describe(): string {
    const what =
      this.kind === 'spread' ? 'topology spread' : this.kind === 'affinity' ? 'pod affinity' : 'pod anti-affinity';
    const skew =
      this.kind === 'spread'
        ? ` maxSkew=${this.maxSkew}${this.minDomains ? ` minDomains=${this.minDomains}` : ''}`
        : '';
    return `${what} on ${this.key}${skew}`;
  }
}
