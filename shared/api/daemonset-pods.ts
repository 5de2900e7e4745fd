// DaemonSets a cluster dump lacks, derived from their pods: `kubectl get pods` without `daemonsets` still shows what
// each DaemonSet puts on every node, and without it the plan would charge new nodes no DaemonSet overhead at all
// (docs/simulate-dump.md, "DaemonSets from their pods").
import type { DaemonSet, NodeAffinity, NodeSelectorTerm, Pod, PodSpec } from './kube';

export interface DerivedDaemonSets {
  daemonSets: DaemonSet[];
  /** One line naming what was derived, empty when nothing was. */
  warnings: string[];
}

/** The DaemonSet a pod's ownerReferences name, as `namespace/name`. */
function ownerOf(pod: Pod): string | undefined {
  const owner = (pod.metadata.ownerReferences ?? []).find((o) => o.kind === 'DaemonSet');
  return owner ? `${pod.metadata.namespace}/${owner.name}` : undefined;
}

/**
 * A DaemonSet for every one the pods name as owner but the input does not hold. Its template is its newest pod's
 * spec (Karpenter, too, prefers a DaemonSet's live pod to its template: admission may have changed it), without what
 * the DaemonSet controller adds per node: `nodeName` and the `metadata.name` field selector of its node affinity.
 */
export function daemonSetsFromPods(pods: readonly Pod[], daemonSets: readonly DaemonSet[]): DerivedDaemonSets {
  const known = new Set(daemonSets.map((d) => `${d.metadata.namespace ?? 'default'}/${d.metadata.name}`));
  const newest = new Map<string, { pod: Pod; count: number }>();
  for (const pod of pods) {
    const owner = ownerOf(pod);
    if (!owner || known.has(owner)) continue;
    const seen = newest.get(owner);
    const newer = !seen || (pod.metadata.creationTimestamp ?? '') >= (seen.pod.metadata.creationTimestamp ?? '');
    newest.set(owner, { pod: newer ? pod : (seen?.pod ?? pod), count: (seen?.count ?? 0) + 1 });
  }
  if (newest.size === 0) return { daemonSets: [], warnings: [] };
  const derived = [...newest].map(([owner, { pod }]) => templateOf(owner, pod));
  const names = [...newest].map(([owner, { count }]) => `${owner} (${count} pod${count === 1 ? '' : 's'})`);
  return {
    daemonSets: derived,
    warnings: [
      `DaemonSets not in the input, derived from their newest pod (requests, tolerations, node selector and ` +
        `affinity) for the overhead of new nodes: ${names.join(', ')}; add daemonsets to the dump to read them`,
    ],
  };
}

function templateOf(owner: string, pod: Pod): DaemonSet {
  const name = owner.slice(owner.indexOf('/') + 1);
  const { nodeName: _nodeName, affinity: podAffinity, ...spec } = pod.spec;
  const { nodeAffinity: podNodeAffinity, ...otherAffinity } = podAffinity ?? {};
  const nodeAffinity = withoutNodeNameField(podNodeAffinity);
  const affinity = nodeAffinity ? { ...otherAffinity, nodeAffinity } : otherAffinity;
  const templateSpec: PodSpec = Object.keys(affinity).length > 0 ? { ...spec, affinity } : spec;
  return {
    kind: 'DaemonSet',
    metadata: { name, namespace: pod.metadata.namespace },
    spec: { template: { metadata: { labels: { ...pod.metadata.labels } }, spec: templateSpec } },
  };
}

/** Node affinity without the DaemonSet controller's per-node `matchFields` on `metadata.name`; terms it leaves empty
 * were the controller's own, and go too. */
function withoutNodeNameField(affinity: NodeAffinity | undefined): NodeAffinity | undefined {
  const required = affinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!affinity || !required) return affinity;
  const terms = required.nodeSelectorTerms
    .map((t): NodeSelectorTerm => {
      const fields = (t.matchFields ?? []).filter((f) => f.key !== 'metadata.name');
      const { matchFields: _fields, ...rest } = t;
      return fields.length > 0 ? { ...rest, matchFields: fields } : rest;
    })
    .filter((t) => (t.matchExpressions?.length ?? 0) > 0 || (t.matchFields?.length ?? 0) > 0);
  const { requiredDuringSchedulingIgnoredDuringExecution: _required, ...rest } = affinity;
  if (terms.length > 0)
    return { ...rest, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } };
  return Object.keys(rest).length > 0 ? rest : undefined;
}
