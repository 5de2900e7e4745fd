// Scenario steps that change running Nodes and pods the way people and controllers do in a real cluster: annotate or
// label one (karpenter.sh/do-not-disrupt on a Node), taint a Node, complete a pod (Succeeded or Failed), set a
// Node's condition (Ready, or one a node monitoring agent publishes, such as KernelReady) as node repair reads it. Targets are named, or chosen by labels (`selector`), since a simulated node's name is only
// known once it registers. Parsing (with field paths) and applying live together, one concept.
import { expectEnum, expectObject, expectString, isObj, type Obj, show } from '../../api/check';
import type { Node, Pod, Taint, TaintEffect } from '../../api/kube';
import type { Problems } from '../../api/problems';
import type { SimCluster } from '../sim-cluster';

export const OBJECT_STEPS = ['annotate', 'label', 'taint', 'complete', 'nodeCondition'] as const;
export type ObjectStepName = (typeof OBJECT_STEPS)[number];

export interface ObjectSelector {
  kind: 'Node' | 'Pod';
  /** Pods only; default "default". */
  namespace: string;
  name?: string;
  /** Every object whose labels include these. */
  selector?: Record<string, string>;
}

export type ObjectStepAction =
  | { type: 'annotate' | 'label'; target: ObjectSelector; values: Record<string, string | null> }
  | { type: 'taint'; target: ObjectSelector; add: Taint[]; remove: Taint[] }
  | { type: 'complete'; target: ObjectSelector; phase: 'Succeeded' | 'Failed' }
  | { type: 'nodeCondition'; target: ObjectSelector; condition: string; status: 'True' | 'False' | 'Unknown' };

const EFFECTS: readonly TaintEffect[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
/** A Kubernetes condition type: a CamelCase name (Ready, AcceleratedHardwareReady). */
const CONDITION_TYPE = /^[A-Za-z][A-Za-z0-9]{0,62}$/;

function parseTarget(
  p: Problems,
  path: string,
  o: Obj,
  kinds: readonly ('Node' | 'Pod')[],
): ObjectSelector | undefined {
  const kind = expectEnum(p, `${path}.kind`, o.kind ?? (kinds.length === 1 ? kinds[0] : undefined), kinds, true);
  const name = expectString(p, `${path}.name`, o.name);
  const namespace = expectString(p, `${path}.namespace`, o.namespace) ?? 'default';
  if (kind === 'Node' && o.namespace !== undefined && kinds.includes('Pod')) {
    p.error(`${path}.namespace`, 'Node is not namespaced');
  }
  let selector: Record<string, string> | undefined;
  if (o.selector !== undefined) {
    const s = expectObject(p, `${path}.selector`, o.selector);
    if (s) {
      selector = {};
      for (const [k, v] of Object.entries(s)) {
        if (typeof v === 'string') selector[k] = v;
        else p.error(`${path}.selector.${k}`, `must be a string, got ${show(v)}`);
      }
    }
  }
  if ((name === undefined) === (selector === undefined)) {
    p.error(path, 'give exactly one of name or selector (labels the objects must carry)');
    return undefined;
  }
  return kind ? { kind, namespace, ...(name ? { name } : {}), ...(selector ? { selector } : {}) } : undefined;
}

function parseValues(p: Problems, path: string, v: unknown): Record<string, string | null> | undefined {
  const o = expectObject(p, path, v, true);
  if (!o) return undefined;
  const out: Record<string, string | null> = {};
  for (const [k, value] of Object.entries(o)) {
    if (typeof value === 'string' || value === null) out[k] = value;
    else p.error(`${path}.${k}`, `must be a string (or null to remove it), got ${show(value)}`);
  }
  return out;
}

function parseTaints(p: Problems, path: string, v: unknown): Taint[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    p.error(path, `must be a list of taints ({key, value, effect}), got ${show(v)}`);
    return [];
  }
  const out: Taint[] = [];
  v.forEach((t, i) => {
    const at = `${path}[${i}]`;
    if (!isObj(t)) {
      p.error(at, `must be a taint ({key, value, effect}), got ${show(t)}`);
      return;
    }
    const key = expectString(p, `${at}.key`, t.key, true);
    const value = expectString(p, `${at}.value`, t.value);
    const effect = expectEnum(p, `${at}.effect`, t.effect, EFFECTS, true);
    if (key && effect) out.push({ key, effect, ...(value !== undefined ? { value } : {}) });
  });
  return out;
}

/** Parses one of OBJECT_STEPS at `path` (spec.steps[i].NAME). */
export function parseObjectStep(
  p: Problems,
  path: string,
  name: ObjectStepName,
  v: unknown,
): ObjectStepAction | undefined {
  const o = expectObject(p, path, v, true);
  if (!o) return undefined;
  const known: Record<ObjectStepName, string[]> = {
    annotate: ['kind', 'namespace', 'name', 'selector', 'annotations'],
    label: ['kind', 'namespace', 'name', 'selector', 'labels'],
    taint: ['kind', 'name', 'selector', 'add', 'remove'],
    complete: ['kind', 'namespace', 'name', 'selector', 'phase'],
    nodeCondition: ['kind', 'name', 'selector', 'type', 'status'],
  };
  for (const k of Object.keys(o)) if (!known[name].includes(k)) p.error(`${path}.${k}`, 'unknown field');
  switch (name) {
    case 'annotate':
    case 'label': {
      const target = parseTarget(p, path, o, ['Node', 'Pod']);
      const field = name === 'annotate' ? 'annotations' : 'labels';
      const values = parseValues(p, `${path}.${field}`, o[field]);
      return target && values ? { type: name, target, values } : undefined;
    }
    case 'taint': {
      const target = parseTarget(p, path, o, ['Node']);
      const add = parseTaints(p, `${path}.add`, o.add);
      const remove = parseTaints(p, `${path}.remove`, o.remove);
      if (o.add === undefined && o.remove === undefined) p.error(path, 'needs add or remove (a list of taints)');
      return target ? { type: 'taint', target, add, remove } : undefined;
    }
    case 'complete': {
      const target = parseTarget(p, path, o, ['Pod']);
      const phase = expectEnum(p, `${path}.phase`, o.phase, ['Succeeded', 'Failed'] as const, true);
      return target && phase ? { type: 'complete', target, phase } : undefined;
    }
    case 'nodeCondition': {
      const target = parseTarget(p, path, o, ['Node']);
      const condition = expectString(p, `${path}.type`, o.type) ?? 'Ready';
      if (!CONDITION_TYPE.test(condition)) {
        p.error(`${path}.type`, `must be a condition type such as Ready or KernelReady, got ${show(condition)}`);
      }
      const status = expectEnum(p, `${path}.status`, o.status, ['True', 'False', 'Unknown'] as const, true);
      return target && status && CONDITION_TYPE.test(condition)
        ? { type: 'nodeCondition', target, condition, status }
        : undefined;
    }
  }
}

const matches = (labels: Record<string, string> | undefined, selector: Record<string, string>): boolean =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function merge(current: Record<string, string> | undefined, values: Record<string, string | null>) {
  const out = { ...current };
  for (const [k, v] of Object.entries(values)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

/** Applies the step to every object it names at `at` (ISO time: a condition's lastTransitionTime); returns how many
 * it changed (0: the caller warns). */
export async function applyObjectStep(cluster: SimCluster, action: ObjectStepAction, at: string): Promise<number> {
  const { target } = action;
  if (target.kind === 'Node') {
    const nodes = (await cluster.listNodes()).filter((n) =>
      target.name ? n.metadata.name === target.name : matches(n.metadata.labels, target.selector ?? {}),
    );
    for (const n of nodes) cluster.updateNode(n.metadata.name, (node) => changeNode(node, action, at));
    return nodes.length;
  }
  const pods = cluster
    .allPods()
    .filter(
      (p) =>
        p.metadata.namespace === target.namespace &&
        (target.name ? p.metadata.name === target.name : matches(p.metadata.labels, target.selector ?? {})),
    );
  for (const p of pods)
    cluster.updatePod(`${p.metadata.namespace}/${p.metadata.name}`, (pod) => changePod(pod, action));
  return pods.length;
}

function changeNode(node: Node, action: ObjectStepAction, at: string): Node {
  switch (action.type) {
    case 'annotate':
      return { ...node, metadata: { ...node.metadata, annotations: merge(node.metadata.annotations, action.values) } };
    case 'label':
      return { ...node, metadata: { ...node.metadata, labels: merge(node.metadata.labels, action.values) } };
    case 'taint': {
      const kept = (node.spec.taints ?? []).filter((t) => !action.remove.some((r) => sameTaint(t, r)));
      const added = action.add.filter((t) => !kept.some((k) => sameTaint(k, t)));
      return { ...node, spec: { ...node.spec, taints: [...kept, ...added] } };
    }
    case 'nodeCondition': {
      const conditions = node.status?.conditions ?? [];
      const previous = conditions.find((c) => c.type === action.condition);
      const others = conditions.filter((c) => c !== previous);
      // As the kubelet and the agents do: the transition time moves only when the status changes.
      const lastTransitionTime = previous?.status === action.status ? (previous.lastTransitionTime ?? at) : at;
      const reason =
        action.condition !== 'Ready'
          ? `${action.condition}${action.status === 'True' ? '' : 'Not'}Healthy`
          : action.status === 'True'
            ? 'KubeletReady'
            : action.status === 'False'
              ? 'KubeletNotReady'
              : 'NodeStatusUnknown';
      const condition = { type: action.condition, status: action.status, reason, lastTransitionTime };
      return { ...node, status: { ...node.status, conditions: [...others, condition] } };
    }
    case 'complete':
      return node;
  }
}

function changePod(pod: Pod, action: ObjectStepAction): Pod {
  switch (action.type) {
    case 'annotate':
      return { ...pod, metadata: { ...pod.metadata, annotations: merge(pod.metadata.annotations, action.values) } };
    case 'label':
      return { ...pod, metadata: { ...pod.metadata, labels: merge(pod.metadata.labels, action.values) } };
    case 'complete':
      return { ...pod, status: { ...pod.status, phase: action.phase } };
    default:
      return pod;
  }
}
