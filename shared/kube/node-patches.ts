// JSON patches for a node's labels, taints and finalizers. Each starts with a `test` of the resourceVersion the patch was built
// from, because replacing or indexing into the taints list is only safe against the list we read.
import type { Taint } from '../api/kube';
import type { NodeSync } from '../ports';

export interface NodeSnapshot {
  resourceVersion: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: Taint[];
  finalizers?: string[];
}

export type JsonPatchOp = { op: 'test' | 'add' | 'replace' | 'remove'; path: string; value?: unknown };

const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
const guard = (node: NodeSnapshot): JsonPatchOp => ({
  op: 'test',
  path: '/metadata/resourceVersion',
  value: node.resourceVersion,
});

/** Adds or removes one taint; undefined when the node is already as wanted. */
export function nodeTaintPatch(node: NodeSnapshot, taint: Taint, present: boolean): JsonPatchOp[] | undefined {
  const taints = node.taints ?? [];
  const index = taints.findIndex((t) => sameTaint(t, taint));
  if (present && index >= 0) return undefined;
  if (!present && index < 0) return undefined;
  if (present) {
    return node.taints
      ? [guard(node), { op: 'add', path: '/spec/taints/-', value: taint }]
      : [guard(node), { op: 'add', path: '/spec/taints', value: [taint] }];
  }
  return [guard(node), { op: 'remove', path: `/spec/taints/${index}` }];
}

/**
 * Makes the node carry the NodeClaim's labels (overwriting values, dropping `removeLabels`) and annotations and taints (adding missing ones, matched by key
 * and effect), and takes off the taints in `removeTaints`, as Karpenter's registration does; every other taint is
 * left alone (not-ready, startup taints: their owners remove them). Undefined when nothing changes.
 */
export function syncNodePatch(node: NodeSnapshot, desired: NodeSync): JsonPatchOp[] | undefined {
  const ops: JsonPatchOp[] = [];
  const labels = node.labels ?? {};
  const dropped = (desired.removeLabels ?? []).filter((k) => k in labels && !(k in desired.labels));
  const labelsChanged = dropped.length > 0 || Object.entries(desired.labels).some(([k, v]) => labels[k] !== v);
  if (labelsChanged) {
    const value: Record<string, string> = { ...labels, ...desired.labels };
    for (const k of dropped) delete value[k];
    ops.push({ op: node.labels ? 'replace' : 'add', path: '/metadata/labels', value });
  }
  const annotations = node.annotations ?? {};
  const wanted = desired.annotations ?? {};
  if (Object.entries(wanted).some(([k, v]) => annotations[k] !== v)) {
    ops.push({
      op: node.annotations ? 'replace' : 'add',
      path: '/metadata/annotations',
      value: { ...annotations, ...wanted },
    });
  }
  const current = node.taints ?? [];
  const removed = desired.removeTaints ?? [];
  const kept = current.filter((c) => !removed.some((r) => sameTaint(c, r)));
  const missing = desired.taints.filter((t) => !kept.some((c) => sameTaint(c, t)));
  if (missing.length > 0 || kept.length < current.length) {
    ops.push({ op: node.taints ? 'replace' : 'add', path: '/spec/taints', value: [...kept, ...missing] });
  }
  const finalizers = node.finalizers ?? [];
  const addFinalizers = (desired.finalizers ?? []).filter((f) => !finalizers.includes(f));
  if (addFinalizers.length > 0) {
    ops.push({
      op: node.finalizers ? 'replace' : 'add',
      path: '/metadata/finalizers',
      value: [...finalizers, ...addFinalizers],
    });
  }
  return ops.length > 0 ? [guard(node), ...ops] : undefined;
}

/** Takes one finalizer off; undefined when the node does not carry it. */
export function removeFinalizerPatch(node: NodeSnapshot, finalizer: string): JsonPatchOp[] | undefined {
  const index = (node.finalizers ?? []).indexOf(finalizer);
  return index < 0 ? undefined : [guard(node), { op: 'remove', path: `/metadata/finalizers/${index}` }];
}
