// The topology domains a pod could land in: values its NodePools can give a new node for a key, plus the labels of
// existing nodes. Topology asks it for the candidate domains of a spread or affinity group (README.md, Topology); the
// answer depends only on the pod's shape class (not its requests), so it is computed once per class and key.
import type { ExistingNode } from './existingnode';
import { isInstanceTypeLabel } from './labels';
import type { PodShape } from './podshape';
import { toleratesHardTaints } from './taints';
import type { NodeClaimTemplate } from './template';
import type { TopologyDomains } from './topology';

export class Domains implements TopologyDomains<PodShape> {
  /**
   * Answers by key, then by the number `classId * 4 + flags`: a topology check asks once per constrained group and
   * claim tried (9,049 times in catalog-mixed-5k), and a text key per ask cost more than the answer
   * (docs/performance.md, "The cold 5k rows").
   */
  private readonly cache = new Map<string, Map<number, string[]>>();
  private readonly templateCache = new Map<string, string[]>();

  /** `nodes`: the solve's existing nodes; the array is filled once they are built, before any domain is asked. */
  constructor(
    private readonly templates: readonly NodeClaimTemplate[],
    private readonly nodes: readonly ExistingNode[],
  ) {}

  of(shape: PodShape, key: string, honorAffinity: boolean, honorTaints: boolean): string[] {
    let byClass = this.cache.get(key);
    if (!byClass) {
      byClass = new Map();
      this.cache.set(key, byClass);
    }
    const slot = shape.classId * 4 + (honorAffinity ? 2 : 0) + (honorTaints ? 1 : 0);
    const hit = byClass.get(slot);
    if (hit) return hit;
    const out = new Set<string>();
    // Strict requirements only: a preferred node-affinity term must not narrow the domains (podshape.ts).
    const strict = shape.strictRequirements;
    const podReq = honorAffinity ? strict.get(key) : undefined;
    // Template taints only: startup taints go away once the node is ready, so they never keep a pod off it.
    for (const t of this.templates) {
      if (honorAffinity && t.requirements.incompatibility(strict, isInstanceTypeLabel)) continue;
      if (honorTaints && !toleratesHardTaints(t.taints, shape.tolerations)) continue;
      const tk = `${t.name}|${key}`;
      let ds = this.templateCache.get(tk);
      if (!ds) {
        ds = t.domains(key);
        this.templateCache.set(tk, ds);
      }
      for (const d of ds) if (!podReq || podReq.has(d)) out.add(d);
    }
    for (const n of this.nodes) {
      const v = n.node.labels[key];
      if (v === undefined || (honorAffinity && !strict.matchesLabels(n.node.labels))) continue;
      if (honorTaints && !toleratesHardTaints(n.taints, shape.tolerations)) continue;
      out.add(v);
    }
    const sorted = [...out].sort();
    byClass.set(slot, sorted);
    return sorted;
  }
}
