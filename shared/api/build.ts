// Turns source documents into a ManifestSet: converts v1alpha5 objects, validates every document, fills in
// Karpenter's defaults, and collects every problem of every document before failing.
import { CAPACITY_RESERVATION_API_VERSION, parseCapacityReservation } from './capacity-reservation';
import type { Obj } from './check';
import { expectObject } from './check';
import { validateConditions, validateCSINode, validateNodeClaimObject, validateRuntimeClass } from './cluster-state';
import { convertLegacy } from './convert/convert';
import { type NodePoolInput, withNodeClassDefaults, withNodePoolDefaults } from './defaults';
import type { SourceDocument } from './documents';
import type { EC2NodeClass } from './karpenter';
import type { Pod, PodSpec } from './kube';
import { DEFAULT_INPUT_LIMITS, type InputLimits } from './limits';
import { emptyManifestSet, type ManifestSet } from './manifest-set';
import { editDistance } from './nearest';
import { otherProviderNodeClass } from './node-class-ref';
import { PodBudget } from './pod-budget';
import { withPodSpecDefaults } from './pod-defaults';
import { type DocumentRef, describeDoc, Problems } from './problems';
import {
  validateDaemonSet,
  validateJob,
  validateMetadata,
  validateNamespace,
  validateNode,
  validatePdb,
  validatePod,
  validatePriorityClass,
  validatePv,
  validatePvc,
  validateStorageClass,
  validateWorkload,
} from './validate-kube';
import { validateNodeClass } from './validate-nodeclass';
import { validateNodeOverlay } from './validate-nodeoverlay';
import { validateNodePool } from './validate-nodepool';

interface KindHandler {
  /** The apiVersions Karpless reads for this kind; any when absent. */
  apiVersions?: string[];
  namespaced: boolean;
  validate(p: Problems, doc: Obj): void;
  add(set: ManifestSet, doc: Obj): void;
}

const push =
  <K extends keyof Omit<ManifestSet, 'warnings'>>(key: K) =>
  (set: ManifestSet, doc: Obj): void => {
    (set[key] as unknown[]).push(doc);
  };

/** A Karpenter kind's validation: its metadata, then its own rules. */
const withMetadata =
  (validate: (p: Problems, doc: Obj) => void) =>
  (p: Problems, doc: Obj): void => {
    validateMetadata(p, doc);
    validate(p, doc);
  };

const HANDLERS: Record<string, KindHandler> = {
  NodePool: {
    apiVersions: ['karpenter.sh/v1'],
    namespaced: false,
    validate: withMetadata((p, d) => {
      validateNodePool(p, d);
      const status = expectObject(p, 'status', d.status);
      if (status) validateConditions(p, 'status.conditions', status.conditions);
    }),
    add: (set, d) => set.nodePools.push(withNodePoolDefaults(d as unknown as NodePoolInput)),
  },
  EC2NodeClass: {
    apiVersions: ['karpenter.k8s.aws/v1'],
    namespaced: false,
    validate: withMetadata(validateNodeClass),
    add: (set, d) => set.nodeClasses.push(withNodeClassDefaults(d as unknown as EC2NodeClass)),
  },
  NodeOverlay: {
    apiVersions: ['karpenter.sh/v1alpha1'],
    namespaced: false,
    validate: withMetadata(validateNodeOverlay),
    add: push('nodeOverlays'),
  },
  Pod: {
    namespaced: true,
    validate: validatePod,
    add: (set, d) => set.pods.push(d as unknown as Pod),
  },
  Deployment: { namespaced: true, validate: validateWorkload, add: push('deployments') },
  ReplicaSet: { namespaced: true, validate: validateWorkload, add: push('replicaSets') },
  StatefulSet: { namespaced: true, validate: validateWorkload, add: push('statefulSets') },
  Job: { namespaced: true, validate: validateJob, add: push('jobs') },
  DaemonSet: { namespaced: true, validate: validateDaemonSet, add: push('daemonSets') },
  PodDisruptionBudget: { namespaced: true, validate: validatePdb, add: push('pdbs') },
  Node: { namespaced: false, validate: validateNode, add: push('nodes') },
  PersistentVolumeClaim: { namespaced: true, validate: validatePvc, add: push('pvcs') },
  PersistentVolume: { namespaced: false, validate: validatePv, add: push('pvs') },
  StorageClass: { namespaced: false, validate: validateStorageClass, add: push('storageClasses') },
  PriorityClass: { namespaced: false, validate: validatePriorityClass, add: push('priorityClasses') },
  Namespace: { namespaced: false, validate: validateNamespace, add: push('namespaces') },
  NodeClaim: {
    apiVersions: ['karpenter.sh/v1'],
    namespaced: false,
    validate: validateNodeClaimObject,
    add: push('nodeClaims'),
  },
  CSINode: { apiVersions: ['storage.k8s.io/v1'], namespaced: false, validate: validateCSINode, add: push('csiNodes') },
  RuntimeClass: {
    apiVersions: ['node.k8s.io/v1'],
    namespaced: false,
    validate: validateRuntimeClass,
    add: push('runtimeClasses'),
  },
  CapacityReservation: {
    apiVersions: [CAPACITY_RESERVATION_API_VERSION],
    namespaced: false,
    validate: withMetadata((p, d) => {
      parseCapacityReservation(p, 'spec', d.spec);
    }),
    add: (set, d) => {
      // Validated above, so this parse reports nothing.
      const ref = { file: '', doc: 0, kind: 'CapacityReservation', name: '' };
      const parsed = parseCapacityReservation(new Problems(ref), 'spec', d.spec);
      if (parsed) set.capacityReservations.push(parsed);
    },
  },
};

export const SUPPORTED_KINDS: readonly string[] = Object.keys(HANDLERS);

export function refOf(d: SourceDocument): DocumentRef {
  const kind = typeof d.raw.kind === 'string' && d.raw.kind ? d.raw.kind : '<no kind>';
  const meta = d.raw.metadata;
  const name =
    typeof meta === 'object' && meta !== null && typeof (meta as Obj).name === 'string' && (meta as Obj).name
      ? ((meta as Obj).name as string)
      : '<unnamed>';
  return { file: d.file, doc: d.doc, kind, name };
}

export interface BuildResult {
  set: ManifestSet;
  /** The documents after conversion, in input order, as they would be written back (no defaults filled in). */
  documents: SourceDocument[];
}

/** Builds the set; problems are appended to `errors` (callers throw once, after every file). */
export function buildManifestSet(
  source: SourceDocument[],
  errors: string[],
  limits: Pick<InputLimits, 'maxPods' | 'ignoreUnknownKinds'> = DEFAULT_INPUT_LIMITS,
): BuildResult {
  const set = emptyManifestSet();
  const documents = convertLegacy(source, errors, set.warnings);
  const seen = new Map<string, SeenAt>();
  const nodePoolRefs: { ref: DocumentRef; className: string }[] = [];
  const podBudget = new PodBudget(limits.maxPods);
  for (const d of documents) {
    const ref = refOf(d);
    const p = new Problems(ref);
    const handler = HANDLERS[ref.kind];
    if (ref.kind === '<no kind>') {
      p.error('kind', 'required');
    } else if (!handler) {
      const message = `kind ${ref.kind} is not used by Karpless`;
      if (limits.ignoreUnknownKinds) set.warnings.push(`${describeDoc(ref)}: ${message}; skipped`);
      else errors.push(`${describeDoc(ref)}: ${message}${unknownKindHint(ref.kind)}`);
      continue;
    } else if (handler.apiVersions && d.raw.apiVersion === undefined) {
      p.error('apiVersion', `required (${handler.apiVersions.join(' or ')})`);
    } else if (handler.apiVersions && !handler.apiVersions.includes(String(d.raw.apiVersion))) {
      p.error(
        'apiVersion',
        `${JSON.stringify(d.raw.apiVersion ?? null)} is not supported for ${ref.kind}; use ${handler.apiVersions.join(' or ')}`,
      );
    } else {
      handler.validate(p, d.raw);
    }
    errors.push(...p.errors);
    set.warnings.push(...p.warnings);
    if (p.errors.length > 0 || !handler) continue;
    const meta = d.raw.metadata as Obj;
    const ns = handler.namespaced ? String(meta.namespace ?? 'default') : '';
    const id = `${ref.kind}/${ns}/${ref.name}`;
    const first = seen.get(id);
    const layer = first ? layerOver(set, ref, d.input, first) : undefined;
    if (layer === 'duplicate') {
      errors.push(
        `${describeDoc(ref)}: metadata.name: duplicate ${ref.kind} ${JSON.stringify(ref.name)}, first defined in ${first?.at}`,
      );
      continue;
    }
    if (layer === 'keep') continue;
    if (typeof layer === 'number' && ref.kind === 'NodePool') {
      nodePoolRefs.splice(
        nodePoolRefs.findIndex((r) => r.ref.name === ref.name),
        1,
      );
    }
    seen.set(id, { at: `${ref.file}#${ref.doc}`, input: d.input });
    // Namespaced objects always carry their namespace, so consumers can match pods, claims and budgets by it.
    const obj = handler.namespaced ? { ...d.raw, metadata: { ...meta, namespace: ns } } : d.raw;
    const over = podBudget.add(ref.kind, obj);
    if (over) {
      errors.push(`${describeDoc(ref)}: ${over}`);
      continue;
    }
    handler.add(set, withTemplateDefaults(obj));
    if (typeof layer === 'number') replaceSlot(set, ref.kind, layer);
    if (ref.kind === 'NodePool') {
      const classRef = (((d.raw.spec as Obj).template as Obj).spec as Obj).nodeClassRef as Obj;
      const ofOther = otherProviderNodeClass({ group: classRef.group as string, kind: classRef.kind as string });
      if (!ofOther) nodePoolRefs.push({ ref, className: String(classRef.name) });
    }
  }
  const classNames = new Set(set.nodeClasses.map((c) => c.metadata.name));
  for (const { ref, className } of nodePoolRefs) {
    if (!classNames.has(className)) {
      set.warnings.push(
        `${describeDoc(ref)}: spec.template.spec.nodeClassRef.name: EC2NodeClass ${JSON.stringify(className)} is not among the manifests`,
      );
    }
  }
  return { set, documents };
}

/** Where an object was first read, and from which input. */
interface SeenAt {
  at: string;
  input: number | undefined;
}

/** The kinds a later input replaces by name (docs/simulate-dump.md, "Layered inputs"), and where the set keeps them. */
const LAYERED: Record<string, 'nodePools' | 'nodeClasses' | 'nodeOverlays'> = {
  NodePool: 'nodePools',
  EC2NodeClass: 'nodeClasses',
  NodeOverlay: 'nodeOverlays',
};

/**
 * What a second object of a name does: an object of another input replaces it when its kind is layered (the later
 * input wins, whatever order the inputs were read in: standard input is read first), and is a duplicate otherwise.
 * A replacement is recorded in `set.replaced`; 'keep' drops the current object, a number is the slot of the earlier
 * one, which the current one takes (replaceSlot).
 */
function layerOver(
  set: ManifestSet,
  ref: DocumentRef,
  input: number | undefined,
  first: SeenAt,
): 'duplicate' | 'keep' | number {
  const key = LAYERED[ref.kind];
  if (!key || input === undefined || first.input === undefined || input === first.input) return 'duplicate';
  const here = `${ref.file}#${ref.doc}`;
  if (input < first.input) {
    set.replaced.push({ kind: ref.kind, name: ref.name, replaced: here, by: first.at });
    return 'keep';
  }
  set.replaced.push({ kind: ref.kind, name: ref.name, replaced: first.at, by: here });
  return (set[key] as { metadata: { name: string } }[]).findIndex((o) => o.metadata.name === ref.name);
}

/** Moves a replacement, just added at the end of its kind's list, into its predecessor's slot, so the kind keeps
 * its input order. */
function replaceSlot(set: ManifestSet, kind: string, slot: number): void {
  const list = set[LAYERED[kind] as 'nodePools'] as unknown[];
  list[slot] = list.pop();
}

/** Applies the API server's pod defaulting to a Pod's spec or a controller's pod template. */
function withTemplateDefaults(doc: Obj): Obj {
  if (doc.kind === 'Pod') return { ...doc, spec: withPodSpecDefaults(doc.spec as PodSpec) };
  const spec = doc.spec as Obj | undefined;
  const template = spec?.template as Obj | undefined;
  if (
    !spec ||
    !template ||
    !['Deployment', 'ReplicaSet', 'StatefulSet', 'Job', 'DaemonSet'].includes(String(doc.kind))
  ) {
    return doc;
  }
  return { ...doc, spec: { ...spec, template: { ...template, spec: withPodSpecDefaults(template.spec as PodSpec) } } };
}

/** Suggests the supported kind a misspelt one was probably meant to be, and how to skip unknown kinds on purpose. */
function unknownKindHint(kind: string): string {
  const near = SUPPORTED_KINDS.find((k) => editDistance(k.toLowerCase(), kind.toLowerCase()) <= 2);
  return `${near ? ` (did you mean ${near}?)` : ''}; pass --ignore-unknown to skip kinds Karpless does not read`;
}
