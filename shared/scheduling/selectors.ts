// Label selectors (for pods and namespaces): matchLabels and matchExpressions ANDed; an empty selector matches all.
import type { LabelSelector } from '../api/kube';

export function matchesSelector(
  selector: LabelSelector | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const v = l[e.key];
    switch (e.operator) {
      case 'In':
        if (v === undefined || !(e.values ?? []).includes(v)) return false;
        break;
      case 'NotIn':
        if (v !== undefined && (e.values ?? []).includes(v)) return false;
        break;
      case 'Exists':
        if (v === undefined) return false;
        break;
      case 'DoesNotExist':
        if (v !== undefined) return false;
        break;
    }
  }
  return true;
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
