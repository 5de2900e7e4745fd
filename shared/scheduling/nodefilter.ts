// The nodes a topology spread with `nodeAffinityPolicy: Honor` counts pods on: those matching the owning pod's
// nodeSelector and one of its ORed required node-affinity terms, as kube-scheduler's PodTopologySpread filters them
// (and Karpenter's TopologyNodeFilter). Preferred terms and volume topology are left out: kube-scheduler ignores them
// there.
import { isInstanceTypeLabel } from './labels';
import type { Requirements } from './requirements';

export class NodeFilter {
  /** Canonical across key and term order, so pods with equal affinity written differently share one group. */
  readonly key: string;

  private constructor(readonly terms: readonly Requirements[]) {
    this.key = terms
      .map((t) => JSON.stringify(t.toNodeSelector()))
      .sort()
      .join('|');
  }

  /**
   * `terms`: one per required term, each already merged with the nodeSelector (or the nodeSelector alone). Undefined
   * when some term constrains nothing: every node matches, so the group must keep the identity pods without node
   * affinity have and be shared with them.
   */
  static of(terms: readonly Requirements[]): NodeFilter | undefined {
    if (terms.length === 0 || terms.some((t) => t.size === 0)) return undefined;
    return new NodeFilter(terms);
  }

  /**
   * Whether a pod on this bin counts. A node's requirements are its labels, so this is kube-scheduler's label match.
   * A claim (`claim`) may still allow values the filter rejects (a capacity or instance type not chosen yet). It is
   * judged as the taint policy judges claims: once, when its pod is counted, by what it will launch with. Counts
   * never shrink (checks treat failures as permanent on that basis), so an open claim cannot wait and be uncounted
   * later; it counts while compatible, as Karpenter's TopologyNodeFilter does and as a compatible NodePool offers its
   * domains. Undercounting instead would let the plan exceed the skew kube-scheduler enforces once the node matches.
   * Instance-type label keys a claim does not constrain yet are open, as when a pod joins it.
   */
  admits(bin: Requirements, claim: boolean): boolean {
    const open = claim ? isInstanceTypeLabel : undefined;
    for (const t of this.terms) if (bin.incompatibility(t, open) === undefined) return true;
    return false;
  }
}
