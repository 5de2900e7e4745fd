// Label selector matching with Kubernetes semantics (matchLabels and matchExpressions are ANDed; an empty selector
// matches everything).
import type { NodeSelectorRequirementWithMinValues } from './karpenter';
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

/** Whether a label's value (undefined when absent) satisfies one node-selector requirement, Gt/Lt/Gte/Lte included. */
export function requirementAllows(r: NodeSelectorRequirementWithMinValues, value: string | undefined): boolean {
  const values = r.values ?? [];
  const n = Number(value);
  const bound = Number(values[0]);
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && n > bound;
    case 'Lt':
      return value !== undefined && n < bound;
    case 'Gte':
      return value !== undefined && n >= bound;
    case 'Lte':
      return value !== undefined && n <= bound;
  }
}
