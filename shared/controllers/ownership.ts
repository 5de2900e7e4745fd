// Which NodePools this Karpless owns, for a cut-over from Karpenter one NodePool at a time (docs/deploy.md,
// "Migrating from Karpenter"). With `nodePools` set in clusters.yaml, Karpless plans, disrupts and publishes status
// only for those pools, and leaves alone pending pods that only the other pools (still Karpenter's) could serve: no
// plan, no FailedScheduling event. Pods no pool can serve at all are still reported. Without the setting it owns
// every NodePool, as before. A NodePool of another provider (EKS Auto Mode's) is never Karpless's, whatever the setting
// (docs/deploy.md, "Other providers' NodePools").
import type { NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { LabelNodePool } from '../api/labels';
import { isProviderNodePool } from '../api/node-class-ref';
import { firstUntolerated, isInstanceTypeLabel, matchableTerms, Requirements } from '../scheduling';

export interface OwnedView {
  nodePools: NodePool[];
  pending: Pod[];
  /** Pending pods left to the pools Karpless does not own. */
  ignored: Pod[];
}

/** The pools and pending pods Karpless acts on: every pool of its own provider when `owned` is undefined. */
export function ownedView(
  nodePools: readonly NodePool[],
  pending: readonly Pod[],
  owned: readonly string[] | undefined,
): OwnedView {
  const isMine = (p: NodePool) => isProviderNodePool(p) && (!owned || owned.includes(p.metadata.name));
  const mine = nodePools.filter(isMine);
  if (mine.length === nodePools.length) return { nodePools: mine, pending: [...pending], ignored: [] };
  const others = nodePools.filter((p) => !isMine(p));
  const kept: Pod[] = [];
  const ignored: Pod[] = [];
  for (const pod of pending) {
    const othersOnly = others.some((p) => couldServe(p, pod)) && !mine.some((p) => couldServe(p, pod));
    (othersOnly ? ignored : kept).push(pod);
  }
  return { nodePools: mine, pending: kept, ignored };
}

/** Whether a node of the pool could take the pod as far as taints and label requirements say (instance types and
 * resources aside): the test Karpenter applies before it tries a NodePool for a pod. */
export function couldServe(pool: NodePool, pod: Pod): boolean {
  const hard = (pool.spec.template.spec.taints ?? []).filter((t) => t.effect !== 'PreferNoSchedule');
  if (firstUntolerated(hard, pod.spec.tolerations ?? [])) return false;
  const labels = { ...(pool.spec.template.metadata?.labels ?? {}), [LabelNodePool]: pool.metadata.name };
  const poolReqs = Requirements.from(pool.spec.template.spec.requirements ?? []).addAll(
    Requirements.fromLabels(labels),
  );
  // Another provider's node classes define labels of their own (Auto Mode's eks.amazonaws.com/compute-type), which
  // Karpless cannot know: any label its pool leaves open might be one of them.
  const definedByTypes = isProviderNodePool(pool) ? isInstanceTypeLabel : () => true;
  const terms = matchableTerms(pod);
  const alternatives = terms.length ? terms : [{ matchExpressions: [] }];
  return alternatives.some((term) => {
    const podReqs = Requirements.fromLabels(pod.spec.nodeSelector).addAll(
      Requirements.from(term.matchExpressions ?? []),
    );
    return poolReqs.incompatibility(podReqs, definedByTypes) === undefined;
  });
}
