// Label selectors (for pods and namespaces): matchLabels and matchExpressions ANDed; an empty selector matches all.
import type { LabelSelector } from '../api/kube';
import { matchesLabelSelector } from '../api/selector';

/** An absent selector matches nothing (a PDB or a term without one selects no pods); an empty one matches all. */
export function matchesSelector(
  selector: LabelSelector | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  return !!selector && matchesLabelSelector(labels, selector);
}

/** A stable text form, so equal selectors written in different key orders share one topology group. */
export function selectorKey(selector: LabelSelector | undefined): string {
  if (!selector) return 'nil';
  const ml = Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const me = (selector.matchExpressions ?? [])
    .map((e) => `${e.key} ${e.operator} ${[...(e.values ?? [])].sort().join(',')}`)
    .sort();
  return JSON.stringify([ml, me]);
}
