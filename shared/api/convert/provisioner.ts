// Provisioner (karpenter.sh/v1alpha5) → NodePool (karpenter.sh/v1), following Karpenter's v1beta1 and v1 migration
// guides. Every field whose meaning changes gets a warning that says what was written instead.
import { isObj, type Obj, show } from '../check';
import {
  LabelArch,
  LabelCapacityType,
  LabelInstanceCategory,
  LabelInstanceFamily,
  LabelInstanceGeneration,
  LabelInstanceType,
  LabelNodePool,
  LabelOS,
} from '../labels';
import type { Problems } from '../problems';
import { convertMetadata, convertNodeTemplateSpec } from './node-template';

export const LabelProvisionerName = 'karpenter.sh/provisioner-name';
const DROPPED_LABELS = ['karpenter.k8s.aws/instance-pods'];

export interface ConvertedProvisioner {
  nodePool: Obj;
  /** An EC2NodeClass built from the inline `spec.provider`, named after the Provisioner. */
  inlineNodeClass?: Obj;
  /** The kubelet settings, which v1 keeps on the EC2NodeClass. */
  kubelet?: Obj;
  nodeClassName: string;
}

const HANDLED = new Set([
  'labels',
  'annotations',
  'taints',
  'startupTaints',
  'requirements',
  'kubeletConfiguration',
  'limits',
  'weight',
  'ttlSecondsAfterEmpty',
  'ttlSecondsUntilExpired',
  'consolidation',
  'provider',
  'providerRef',
]);

export function convertProvisioner(p: Problems, doc: Obj): ConvertedProvisioner {
  const spec = isObj(doc.spec) ? doc.spec : {};
  const metadata = convertMetadata(doc.metadata);
  const name = String(metadata.name ?? 'default');
  const templateMeta: Obj = {};
  if (isObj(spec.labels)) {
    const labels: Obj = {};
    for (const [k, v] of Object.entries(spec.labels)) {
      if (k === LabelProvisionerName) p.warn(`spec.labels["${k}"]`, `dropped: Karpenter sets ${LabelNodePool} itself`);
      else labels[k] = v;
    }
    if (Object.keys(labels).length > 0) templateMeta.labels = labels;
  }
  if (spec.annotations !== undefined) templateMeta.annotations = spec.annotations;

  const templateSpec: Obj = {};
  let nodeClassName = name;
  let inlineNodeClass: Obj | undefined;
  if (spec.provider !== undefined && spec.providerRef !== undefined) {
    p.error('spec', 'provider and providerRef are mutually exclusive');
  } else if (isObj(spec.providerRef)) {
    nodeClassName = String(spec.providerRef.name ?? '');
    if (!nodeClassName) p.error('spec.providerRef.name', 'required');
  } else if (isObj(spec.provider)) {
    inlineNodeClass = {
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name },
      spec: convertNodeTemplateSpec(p, spec.provider, 'spec.provider'),
    };
    p.warn('spec.provider', `the inline provider becomes EC2NodeClass/${name}`);
  } else {
    nodeClassName = 'default';
    p.warn('spec.providerRef', 'not set; the NodePool refers to EC2NodeClass/default');
  }
  templateSpec.nodeClassRef = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClassName };
  templateSpec.requirements = convertRequirements(p, spec.requirements);
  if (spec.taints !== undefined) templateSpec.taints = spec.taints;
  if (spec.startupTaints !== undefined) templateSpec.startupTaints = spec.startupTaints;
  templateSpec.expireAfter = convertExpiry(p, spec.ttlSecondsUntilExpired);

  const nodePoolSpec: Obj = {
    template: { ...(Object.keys(templateMeta).length > 0 ? { metadata: templateMeta } : {}), spec: templateSpec },
    disruption: convertDisruption(p, spec),
  };
  if (spec.limits !== undefined) {
    if (isObj(spec.limits) && isObj(spec.limits.resources)) nodePoolSpec.limits = spec.limits.resources;
    else p.error('spec.limits.resources', `must be a map of resource quantities, got ${show(spec.limits)}`);
  }
  if (spec.weight !== undefined) nodePoolSpec.weight = spec.weight;

  let kubelet: Obj | undefined;
  if (spec.kubeletConfiguration !== undefined) {
    if (!isObj(spec.kubeletConfiguration)) p.error('spec.kubeletConfiguration', 'must be an object');
    else {
      const { containerRuntime, ...rest } = spec.kubeletConfiguration;
      if (containerRuntime !== undefined)
        p.warn('spec.kubeletConfiguration.containerRuntime', 'dropped: v1 supports containerd only');
      kubelet = rest;
      p.warn('spec.kubeletConfiguration', `moves to EC2NodeClass/${nodeClassName} spec.kubelet`);
    }
  }
  for (const k of Object.keys(spec)) if (!HANDLED.has(k)) p.warn(`spec.${k}`, 'has no v1 equivalent and is dropped');
  p.warn('', `converted to NodePool/${name} (karpenter.sh/v1)`);
  return {
    nodePool: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata, spec: nodePoolSpec },
    ...(inlineNodeClass ? { inlineNodeClass } : {}),
    ...(kubelet ? { kubelet } : {}),
    nodeClassName,
  };
}

/** Copies requirements, renames legacy keys, and writes out the requirements v1alpha5 defaulted implicitly. */
function convertRequirements(p: Problems, v: unknown): Obj[] {
  const out: Obj[] = [];
  if (v !== undefined && !Array.isArray(v)) p.error('spec.requirements', `must be a list, got ${show(v)}`);
  (Array.isArray(v) ? v : []).forEach((r, i) => {
    if (!isObj(r)) {
      out.push(r as Obj);
      return;
    }
    if (typeof r.key === 'string' && DROPPED_LABELS.includes(r.key)) {
      p.warn(`spec.requirements[${i}].key`, `${r.key} no longer exists in v1; the requirement is dropped`);
      return;
    }
    // v1alpha5 took a negative bound; the v1 NodePool CRD refuses one (docs/api.md, Validation).
    const bound = Array.isArray(r.values) && r.values.length === 1 ? String(r.values[0]) : '';
    if (['Gt', 'Lt', 'Gte', 'Lte'].includes(String(r.operator)) && /^-\d+$/.test(bound)) {
      p.error(
        `spec.requirements[${i}].values[0]`,
        `${show(bound)} must be a non-negative integer for operator ${r.operator}: a v1 NodePool refuses a negative bound`,
      );
    }
    out.push({ ...r });
  });
  const has = (...keys: string[]) => out.some((r) => keys.includes(String(r.key)));
  const add = (req: Obj) => {
    out.push(req);
    const values = (req.values as string[]).join(', ');
    p.warn('spec.requirements', `added ${req.key} ${req.operator} [${values}]: v1alpha5 defaulted it, v1 does not`);
  };
  if (!has(LabelOS)) add({ key: LabelOS, operator: 'In', values: ['linux'] });
  if (!has(LabelArch)) add({ key: LabelArch, operator: 'In', values: ['amd64'] });
  if (!has(LabelCapacityType)) add({ key: LabelCapacityType, operator: 'In', values: ['on-demand'] });
  if (!has(LabelInstanceType, LabelInstanceFamily, LabelInstanceCategory, LabelInstanceGeneration)) {
    add({ key: LabelInstanceCategory, operator: 'In', values: ['c', 'm', 'r'] });
    add({ key: LabelInstanceGeneration, operator: 'Gt', values: ['2'] });
  }
  return out;
}

const seconds = (p: Problems, path: string, v: unknown): string | undefined => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    p.error(path, `must be a whole number of seconds, got ${show(v)}`);
    return undefined;
  }
  return `${v}s`;
};

function convertExpiry(p: Problems, ttl: unknown): string | undefined {
  if (ttl === undefined) {
    p.warn(
      'spec.ttlSecondsUntilExpired',
      'was not set, so v1alpha5 nodes never expired; v1 defaults expireAfter to 720h, so expireAfter: Never is written',
    );
    return 'Never';
  }
  const d = seconds(p, 'spec.ttlSecondsUntilExpired', ttl);
  if (d) p.warn('spec.ttlSecondsUntilExpired', `becomes spec.template.spec.expireAfter: ${d}`);
  return d;
}

function convertDisruption(p: Problems, spec: Obj): Obj {
  const enabled = isObj(spec.consolidation) && spec.consolidation.enabled === true;
  const ttl = spec.ttlSecondsAfterEmpty;
  if (enabled && ttl !== undefined) {
    p.error('spec', 'consolidation.enabled and ttlSecondsAfterEmpty are mutually exclusive');
    return {};
  }
  if (enabled) {
    p.warn(
      'spec.consolidation.enabled',
      'true becomes spec.disruption.consolidationPolicy: WhenEmptyOrUnderutilized with consolidateAfter: 0s',
    );
    return { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' };
  }
  if (ttl !== undefined) {
    const d = seconds(p, 'spec.ttlSecondsAfterEmpty', ttl);
    if (d)
      p.warn(
        'spec.ttlSecondsAfterEmpty',
        `becomes spec.disruption.consolidationPolicy: WhenEmpty with consolidateAfter: ${d}`,
      );
    return { consolidationPolicy: 'WhenEmpty', ...(d ? { consolidateAfter: d } : {}) };
  }
  p.warn(
    'spec.consolidation',
    'neither consolidation nor ttlSecondsAfterEmpty was set, so v1alpha5 removed no nodes; v1 consolidates by default, so consolidationPolicy: WhenEmpty with consolidateAfter: Never is written',
  );
  return { consolidationPolicy: 'WhenEmpty', consolidateAfter: 'Never' };
}
