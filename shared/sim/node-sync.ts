// What syncNode makes of a Node in the simulated cluster, as the real adapter's patch does (shared/kube/node-patches.ts):
// labels merged less `removeLabels`, annotations merged, missing taints and finalizers added, only `removeTaints`
// taken off.
import type { Node, Taint } from '../api/kube';
import type { NodeSync } from '../ports';

/** The Node's metadata and spec with `desired` applied. */
export function syncedNode(node: Node, desired: NodeSync): Pick<Node, 'metadata' | 'spec'> {
  const same = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
  const removed = desired.removeTaints ?? [];
  const kept = (node.spec.taints ?? []).filter((t) => !removed.some((r) => same(t, r)));
  const missing = desired.taints.filter((t) => !kept.some((k) => same(k, t)));
  const finalizers = node.metadata.finalizers ?? [];
  const addFinalizers = (desired.finalizers ?? []).filter((f) => !finalizers.includes(f));
  return {
    metadata: {
      ...node.metadata,
      labels: withoutKeys({ ...node.metadata.labels, ...desired.labels }, desired.removeLabels, desired.labels),
      ...(desired.annotations ? { annotations: { ...node.metadata.annotations, ...desired.annotations } } : {}),
      ...(addFinalizers.length ? { finalizers: [...finalizers, ...addFinalizers] } : {}),
    },
    spec: { ...node.spec, taints: [...kept, ...missing] },
  };
}

/** The labels without the keys to remove, except those the sync sets. */
function withoutKeys(
  labels: Record<string, string>,
  remove: readonly string[] | undefined,
  keep: Record<string, string>,
): Record<string, string> {
  for (const k of remove ?? []) if (!(k in keep)) delete labels[k];
  return labels;
}
