// Pods written for v1alpha5 select `karpenter.sh/provisioner-name` and carry the `do-not-evict` annotation. v1 nodes
// carry `karpenter.sh/nodepool` and honour `karpenter.sh/do-not-disrupt`, so the workloads are rewritten to match.
import { isObj, type Obj } from '../check';
import { AnnotationDoNotDisrupt, LabelNodePool } from '../labels';
import type { Problems } from '../problems';
import { LabelProvisionerName } from './provisioner';

const LEGACY_ANNOTATIONS = ['karpenter.sh/do-not-evict', 'karpenter.sh/do-not-consolidate'];

/** Where the pod spec and pod metadata live for each kind that carries one. */
const POD_TEMPLATE: Record<string, string[]> = {
  Pod: [],
  Deployment: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  Job: ['spec', 'template'],
};

/** Rewrites legacy keys in place-copied documents; returns the (possibly new) document. */
export function convertWorkload(p: Problems, doc: Obj): Obj {
  const route = POD_TEMPLATE[String(doc.kind)];
  if (!route) return doc;
  // Most documents name nothing legacy: they are returned as they are, without the copy.
  if (!mentionsLegacy(doc)) return doc;
  const copy = structuredClone(doc);
  let holder: unknown = copy;
  for (const step of route) holder = isObj(holder) ? holder[step] : undefined;
  if (!isObj(holder)) return doc;
  const base = route.join('.');
  const prefix = base ? `${base}.` : '';
  let changed = renameAnnotations(p, holder.metadata, `${prefix}metadata.annotations`);
  changed = renameSelectors(p, holder.spec, `${prefix}spec`) || changed;
  return changed ? copy : doc;
}

const LEGACY_NAMES: ReadonlySet<string> = new Set([...LEGACY_ANNOTATIONS, LabelProvisionerName]);

/** Whether any key or string value in `value` is a legacy name: only then can the conversion change anything.
 * Walked without building entry arrays: every pod of a large input passes here. */
function mentionsLegacy(value: unknown): boolean {
  if (typeof value === 'string') return LEGACY_NAMES.has(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (mentionsLegacy(v)) return true;
    return false;
  }
  const obj = value as Record<string, unknown>;
  for (const k in obj) if (Object.hasOwn(obj, k) && (LEGACY_NAMES.has(k) || mentionsLegacy(obj[k]))) return true;
  return false;
}

function renameAnnotations(p: Problems, meta: unknown, path: string): boolean {
  if (!isObj(meta) || !isObj(meta.annotations)) return false;
  const annotations = meta.annotations;
  let changed = false;
  for (const legacy of LEGACY_ANNOTATIONS) {
    if (annotations[legacy] === undefined) continue;
    if (annotations[AnnotationDoNotDisrupt] === undefined) annotations[AnnotationDoNotDisrupt] = annotations[legacy];
    delete annotations[legacy];
    p.warn(`${path}["${legacy}"]`, `becomes ${AnnotationDoNotDisrupt}`);
    changed = true;
  }
  return changed;
}

function renameSelectors(p: Problems, spec: unknown, path: string): boolean {
  if (!isObj(spec)) return false;
  let changed = false;
  const nodeSelector = spec.nodeSelector;
  if (isObj(nodeSelector) && nodeSelector[LabelProvisionerName] !== undefined) {
    if (nodeSelector[LabelNodePool] === undefined) nodeSelector[LabelNodePool] = nodeSelector[LabelProvisionerName];
    delete nodeSelector[LabelProvisionerName];
    p.warn(`${path}.nodeSelector["${LabelProvisionerName}"]`, `becomes ${LabelNodePool}`);
    changed = true;
  }
  const affinity = isObj(spec.affinity) && isObj(spec.affinity.nodeAffinity) ? spec.affinity.nodeAffinity : undefined;
  if (!affinity) return changed;
  const terms: { term: unknown; path: string }[] = [];
  const req = affinity.requiredDuringSchedulingIgnoredDuringExecution;
  const reqPath = `${path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
  if (isObj(req) && Array.isArray(req.nodeSelectorTerms)) {
    req.nodeSelectorTerms.forEach((t, i) => {
      terms.push({ term: t, path: `${reqPath}[${i}]` });
    });
  }
  const pref = affinity.preferredDuringSchedulingIgnoredDuringExecution;
  const prefPath = `${path}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`;
  if (Array.isArray(pref)) {
    pref.forEach((t, i) => {
      if (isObj(t)) terms.push({ term: t.preference, path: `${prefPath}[${i}].preference` });
    });
  }
  for (const { term, path: termPath } of terms) {
    if (!isObj(term) || !Array.isArray(term.matchExpressions)) continue;
    term.matchExpressions.forEach((e, i) => {
      if (isObj(e) && e.key === LabelProvisionerName) {
        e.key = LabelNodePool;
        p.warn(`${termPath}.matchExpressions[${i}].key`, `${LabelProvisionerName} becomes ${LabelNodePool}`);
        changed = true;
      }
    });
  }
  return changed;
}
