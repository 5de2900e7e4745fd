// Converts the v1alpha5 documents of a whole input (Provisioners may refer to AWSNodeTemplates in other files) to v1,
// leaving every other document where it was.
import { isObj, type Obj } from '../check';
import type { SourceDocument } from '../documents';
import { Problems } from '../problems';
import { convertNodeTemplate } from './node-template';
import { type ConvertedProvisioner, convertProvisioner } from './provisioner';
import { convertNodeClassV1beta1, convertNodePoolV1beta1 } from './v1beta1';
import { convertWorkload } from './workloads';

const isProvisioner = (d: Obj) => d.kind === 'Provisioner' && d.apiVersion === 'karpenter.sh/v1alpha5';
const isNodeTemplate = (d: Obj) => d.kind === 'AWSNodeTemplate' && d.apiVersion === 'karpenter.k8s.aws/v1alpha1';
const isBetaNodePool = (d: Obj) => d.kind === 'NodePool' && d.apiVersion === 'karpenter.sh/v1beta1';
const isBetaNodeClass = (d: Obj) => d.kind === 'EC2NodeClass' && d.apiVersion === 'karpenter.k8s.aws/v1beta1';
/** Documents that become node classes, and ones that become NodePools. */
const isLegacyClass = (d: Obj) => isNodeTemplate(d) || isBetaNodeClass(d);
const isLegacyPool = (d: Obj) => isProvisioner(d) || isBetaNodePool(d);

const nameOf = (d: Obj): string =>
  isObj(d.metadata) && typeof d.metadata.name === 'string' && d.metadata.name ? d.metadata.name : '<unnamed>';

const problemsFor = (d: SourceDocument) =>
  new Problems({ file: d.file, doc: d.doc, kind: String(d.raw.kind), name: nameOf(d.raw) });

/** Returns the documents with v1alpha5 objects replaced by v1 ones; problems go to `errors` and `warnings`. */
export function convertLegacy(source: SourceDocument[], errors: string[], warnings: string[]): SourceDocument[] {
  if (!source.some((d) => isLegacyPool(d.raw) || isLegacyClass(d.raw) || isPodBearing(d.raw))) return source;
  // Problems are reported in input order, whatever order the documents are converted in.
  const reports = new Map<SourceDocument, Problems>();
  const report = (d: SourceDocument, p: Problems) => reports.set(d, p);
  // Node classes first, so Provisioners can hand them their kubelet settings.
  const classes = new Map<string, { doc: SourceDocument; kubelet?: string; clones: SourceDocument[] }>();
  const converted = new Map<SourceDocument, SourceDocument[]>();
  for (const d of source) {
    if (!isLegacyClass(d.raw)) continue;
    const p = problemsFor(d);
    let nodeClass: Obj;
    if (isBetaNodeClass(d.raw)) nodeClass = convertNodeClassV1beta1(p, d.raw);
    else {
      nodeClass = convertNodeTemplate(p, d.raw);
      p.warn('', `converted to EC2NodeClass/${nameOf(d.raw)} (karpenter.k8s.aws/v1)`);
    }
    report(d, p);
    const doc = { ...d, raw: nodeClass };
    classes.set(nameOf(d.raw), { doc, clones: [] });
    converted.set(d, [doc]);
  }
  for (const d of source) {
    if (isLegacyPool(d.raw)) {
      const p = problemsFor(d);
      const result = isBetaNodePool(d.raw) ? convertNodePoolV1beta1(p, d.raw) : convertProvisioner(p, d.raw);
      const out: SourceDocument[] = [{ ...d, raw: result.nodePool }];
      if (result.inlineNodeClass) {
        if (result.kubelet) (result.inlineNodeClass.spec as Obj).kubelet = result.kubelet;
        out.push({ ...d, raw: result.inlineNodeClass });
      } else {
        attachKubelet(p, result, classes);
      }
      report(d, p);
      converted.set(d, out);
    } else if (isPodBearing(d.raw)) {
      const p = problemsFor(d);
      const raw = convertWorkload(p, d.raw);
      report(d, p);
      if (raw !== d.raw) converted.set(d, [{ ...d, raw }]);
    }
  }
  const out: SourceDocument[] = [];
  for (const d of source) {
    const problems = reports.get(d);
    errors.push(...(problems?.errors ?? []));
    warnings.push(...(problems?.warnings ?? []));
    // A document that failed to convert is reported once, in its own terms, not again as the v1 object.
    if (problems && problems.errors.length > 0) continue;
    out.push(...(converted.get(d) ?? [d]));
    if (isLegacyClass(d.raw)) out.push(...(classes.get(nameOf(d.raw))?.clones ?? []));
  }
  return out;
}

function isPodBearing(d: Obj): boolean {
  return ['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'].includes(String(d.kind));
}

/**
 * v1 keeps kubelet settings on the EC2NodeClass. The first Provisioner to use a node class decides its kubelet; a
 * later one with different settings gets its own copy of the class, named `<class>-<nodepool>`.
 */
function attachKubelet(
  p: Problems,
  result: ConvertedProvisioner,
  classes: Map<string, { doc: SourceDocument; kubelet?: string; clones: SourceDocument[] }>,
): void {
  const entry = classes.get(result.nodeClassName);
  const wanted = JSON.stringify(result.kubelet ?? null);
  if (!entry) {
    if (result.kubelet) {
      p.warn('', `kubelet settings dropped: node class ${result.nodeClassName} is not among the converted manifests`);
    }
    return;
  }
  if (entry.kubelet === undefined) {
    entry.kubelet = wanted;
    if (result.kubelet) (entry.doc.raw.spec as Obj).kubelet = result.kubelet;
    return;
  }
  if (entry.kubelet === wanted) return;
  const poolName = nameOf(result.nodePool);
  const cloneName = `${result.nodeClassName}-${poolName}`;
  const spec: Obj = structuredClone(entry.doc.raw.spec as Obj);
  delete spec.kubelet;
  if (result.kubelet) spec.kubelet = result.kubelet;
  const clone = { ...entry.doc.raw, metadata: { ...(entry.doc.raw.metadata as Obj), name: cloneName }, spec };
  entry.clones.push({ ...entry.doc, raw: clone });
  ((result.nodePool.spec as Obj).template as Obj).spec = {
    ...(((result.nodePool.spec as Obj).template as Obj).spec as Obj),
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: cloneName },
  };
  p.warn(
    '',
    `kubelet settings differ from another NodePool using node class ${result.nodeClassName}; v1 keeps kubelet on the EC2NodeClass, so EC2NodeClass/${cloneName} is created for this NodePool`,
  );
}
