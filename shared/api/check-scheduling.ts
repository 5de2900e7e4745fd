// Checks for the scheduling vocabulary shared by NodePools and pods: requirements, label selectors, taints and
// tolerations.
import {
  expectArray,
  expectEnum,
  expectInt,
  expectObject,
  expectString,
  labelKeyProblem,
  type Obj,
  show,
} from './check';
import type { Problems } from './problems';
import { at } from './problems';
import { restrictedLabelReason } from './restricted';

export const NODE_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] as const;
export const LABEL_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

export interface RequirementRules {
  /** NodePool requirements: restricted label keys and minValues. */
  nodePool?: boolean;
  /** Karpenter's objects (NodePool, NodeClaim, NodeOverlay): a Gt/Lt/Gte/Lte bound may not be negative. */
  nonNegativeBounds?: boolean;
}

/** One node selector requirement at `path`; returns false when it is invalid. */
export function checkRequirement(p: Problems, path: string, v: unknown, rules: RequirementRules = {}): boolean {
  const r = expectObject(p, path, v, true);
  if (!r) return false;
  const before = p.errors.length;
  const k = checkLabelKey(p, at(path, 'key'), r.key);
  if (k !== undefined && rules.nodePool) {
    const reason = restrictedLabelReason(k);
    if (reason) p.error(at(path, 'key'), reason);
  }
  const op = expectEnum(p, at(path, 'operator'), r.operator, NODE_SELECTOR_OPERATORS, true);
  const values = checkValues(p, at(path, 'values'), r.values);
  if (op && values) {
    checkSetOperatorValues(p, at(path, 'values'), op, values);
    if (op === 'Gt' || op === 'Lt' || op === 'Gte' || op === 'Lte') {
      if (values.length !== 1) p.error(at(path, 'values'), `must have exactly one value for operator ${op}`);
      else if (!/^-?\d+$/.test(values[0] as string)) {
        p.error(at(path, 'values[0]'), `${show(values[0])} must be an integer for operator ${op}`);
      } else if (rules.nonNegativeBounds && (values[0] as string).startsWith('-')) {
        // The NodePool and NodeClaim CRDs' rule: a bound is one integer of at least 0 (pods may compare with
        // negatives; Karpenter's objects may not).
        p.error(at(path, 'values[0]'), `${show(values[0])} must be a non-negative integer for operator ${op}`);
      }
    }
  }
  if (r.minValues !== undefined) {
    if (!rules.nodePool) p.error(at(path, 'minValues'), 'is only allowed in NodePool requirements');
    else {
      const mv = expectInt(p, at(path, 'minValues'), r.minValues, { min: 1, max: 50 });
      if (mv !== undefined && op === 'In' && values && values.length < mv) {
        p.error(
          at(path, 'minValues'),
          `must be at most the number of values (${values.length}) for operator In, got ${mv}`,
        );
      }
    }
  }
  return p.errors.length === before;
}

/** A required label key at `path`; returns it when it is a well-formed key. */
function checkLabelKey(p: Problems, path: string, v: unknown): string | undefined {
  const k = expectString(p, path, v, true);
  if (k === undefined) return undefined;
  const malformed = labelKeyProblem(k);
  if (malformed) p.error(path, malformed);
  return malformed ? undefined : k;
}

/** The value count the set operators need, shared by node selector requirements and label selector expressions. */
function checkSetOperatorValues(p: Problems, path: string, op: string, values: string[]): void {
  if ((op === 'In' || op === 'NotIn') && values.length === 0) {
    p.error(path, `must have at least one value for operator ${op}`);
  }
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
    p.error(path, `must be empty for operator ${op}`);
  }
}

function checkValues(p: Problems, path: string, v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  const list = expectArray(p, path, v);
  if (!list) return undefined;
  let ok = true;
  list.forEach((item, i) => {
    if (typeof item !== 'string') {
      p.error(at(path, i), `must be a string, got ${show(item)} (quote it in YAML)`);
      ok = false;
    }
  });
  return ok ? (list as string[]) : undefined;
}

export function checkRequirements(p: Problems, path: string, v: unknown, rules: RequirementRules = {}): void {
  const list = expectArray(p, path, v, rules.nodePool);
  if (!list) return;
  if (rules.nodePool && list.length > 100) p.error(path, `must have at most 100 requirements, got ${list.length}`);
  list.forEach((item, i) => {
    checkRequirement(p, at(path, i), item, rules);
  });
}

export function checkNodeSelectorTerm(p: Problems, path: string, v: unknown): void {
  const term = expectObject(p, path, v, true);
  if (!term) return;
  for (const field of ['matchExpressions', 'matchFields'] as const) {
    const list = expectArray(p, at(path, field), term[field]);
    list?.forEach((item, i) => {
      checkRequirement(p, at(path, field, i), item);
    });
  }
}

/** A metav1.LabelSelector: string matchLabels, and matchExpressions with the set operators. */
export function checkLabelSelector(p: Problems, path: string, v: unknown): boolean {
  const sel = expectObject(p, path, v);
  if (!sel) return v === undefined || v === null;
  const before = p.errors.length;
  const ml = expectObject(p, at(path, 'matchLabels'), sel.matchLabels);
  if (ml) {
    for (const [k, val] of Object.entries(ml)) {
      const kp = labelKeyProblem(k);
      if (kp) p.error(at(path, 'matchLabels', `[${JSON.stringify(k)}]`), kp);
      if (typeof val !== 'string') {
        p.error(
          at(path, 'matchLabels', `[${JSON.stringify(k)}]`),
          `must be a string, got ${show(val)} (quote it in YAML)`,
        );
      }
    }
  }
  const exprs = expectArray(p, at(path, 'matchExpressions'), sel.matchExpressions);
  exprs?.forEach((item, i) => {
    const ep = at(path, 'matchExpressions', i);
    const e = expectObject(p, ep, item, true);
    if (!e) return;
    checkLabelKey(p, at(ep, 'key'), e.key);
    const op = expectEnum(p, at(ep, 'operator'), e.operator, LABEL_SELECTOR_OPERATORS, true);
    const values = checkValues(p, at(ep, 'values'), e.values);
    if (op && values) checkSetOperatorValues(p, at(ep, 'values'), op, values);
  });
  return p.errors.length === before;
}

export function checkTaints(p: Problems, path: string, v: unknown): void {
  const list = expectArray(p, path, v);
  list?.forEach((item, i) => {
    const tp = at(path, i);
    const t = expectObject(p, tp, item, true);
    if (!t) return;
    checkLabelKey(p, at(tp, 'key'), t.key);
    expectString(p, at(tp, 'value'), t.value);
    expectEnum(p, at(tp, 'effect'), t.effect, TAINT_EFFECTS, true);
  });
}

export function checkTolerations(p: Problems, path: string, v: unknown): void {
  const list = expectArray(p, path, v);
  list?.forEach((item, i) => {
    const tp = at(path, i);
    const t: Obj | undefined = expectObject(p, tp, item, true);
    if (!t) return;
    expectString(p, at(tp, 'key'), t.key);
    const op = expectEnum(p, at(tp, 'operator'), t.operator, ['Exists', 'Equal'] as const);
    if (op === 'Exists' && t.value !== undefined && t.value !== '') {
      p.error(at(tp, 'value'), 'must be empty for operator Exists');
    }
    if ((op === 'Equal' || op === undefined) && t.key === undefined && t.operator !== undefined) {
      p.error(at(tp, 'key'), 'required for operator Equal');
    }
    expectString(p, at(tp, 'value'), t.value);
    if (t.effect !== undefined && t.effect !== '') expectEnum(p, at(tp, 'effect'), t.effect, TAINT_EFFECTS);
    expectInt(p, at(tp, 'tolerationSeconds'), t.tolerationSeconds);
  });
}
