// Label selector matching with Kubernetes semantics (matchLabels and matchExpressions are ANDed; an empty selector
// matches everything).
import type { LabelSelector } from './kube';

export function matchesLabelSelector(labels: Record<string, string> | undefined, selector: LabelSelector): boolean {
  const have = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (have[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const value = have[e.key];
    const present = value !== undefined;
    switch (e.operator) {
      case 'In':
        if (!present || !(e.values ?? []).includes(value)) return false;
        break;
      case 'NotIn':
        if (present && (e.values ?? []).includes(value)) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
    }
  }
  return true;
}
