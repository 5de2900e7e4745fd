// AWSNodeTemplate (karpenter.k8s.aws/v1alpha1) spec, or a Provisioner's inline `provider`, → EC2NodeClass spec.
import { isObj, type Obj, show } from '../check';
import type { Problems } from '../problems';
import { ALIAS_FAMILIES } from '../validate-nodeclass';
import { selectorTerms } from './selectors';

const COPIED = [
  'instanceProfile',
  'userData',
  'tags',
  'metadataOptions',
  'blockDeviceMappings',
  'detailedMonitoring',
  'context',
];
const HANDLED = new Set([
  ...COPIED,
  'subnetSelector',
  'securityGroupSelector',
  'amiFamily',
  'amiSelector',
  'apiVersion',
  'kind',
]);

export function convertNodeTemplateSpec(p: Problems, spec: Obj, base: string): Obj {
  const out: Obj = {};
  const family = typeof spec.amiFamily === 'string' ? spec.amiFamily : undefined;
  const amiFamily = family ?? 'AL2';
  const familyNote = family ? amiFamily : 'not set (v1alpha5 used AL2), so AL2';
  if (amiFamily === 'Ubuntu') {
    p.error(
      `${base}.amiFamily`,
      'Ubuntu is not supported by Karpenter v1: use amiFamily Custom with your own userData',
    );
  } else if (spec.amiSelector !== undefined) {
    const terms = selectorTerms(p, `${base}.amiSelector`, spec.amiSelector, { ami: true });
    if (terms) out.amiSelectorTerms = terms;
    out.amiFamily = amiFamily;
    if (!family)
      p.warn(
        `${base}.amiFamily`,
        'not set (v1alpha5 used AL2); v1 requires it with amiSelectorTerms, so amiFamily: AL2 is written',
      );
  } else if (amiFamily === 'Custom') {
    p.error(`${base}.amiSelector`, 'required with amiFamily Custom');
  } else {
    const alias = Object.keys(ALIAS_FAMILIES).find((k) => ALIAS_FAMILIES[k] === amiFamily);
    if (alias) {
      out.amiSelectorTerms = [{ alias: `${alias}@latest` }];
      p.warn(
        `${base}.amiFamily`,
        `${familyNote} becomes amiSelectorTerms alias ${alias}@latest (the latest EKS-optimized AMI, as before)`,
      );
    } else {
      p.error(
        `${base}.amiFamily`,
        `${show(amiFamily)} is not one of AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Custom`,
      );
    }
  }
  const subnets = selectorTerms(p, `${base}.subnetSelector`, spec.subnetSelector);
  if (subnets) out.subnetSelectorTerms = subnets;
  const groups = selectorTerms(p, `${base}.securityGroupSelector`, spec.securityGroupSelector);
  if (groups) out.securityGroupSelectorTerms = groups;
  for (const field of COPIED) if (spec[field] !== undefined) out[field] = spec[field];
  if (spec.instanceProfile === undefined) {
    p.warn(
      `${base}.instanceProfile`,
      'was not set (v1alpha5 used settings.aws.defaultInstanceProfile); set spec.role or spec.instanceProfile on the EC2NodeClass before applying it',
    );
  }
  for (const field of ['launchTemplate', 'launchTemplateName']) {
    if (spec[field] !== undefined) {
      p.warn(
        `${base}.${field}`,
        'unmanaged launch templates were removed in v1beta1 and the field is dropped: move its AMI, security groups and user data into the EC2NodeClass',
      );
    }
  }
  for (const k of Object.keys(spec)) {
    if (!HANDLED.has(k) && k !== 'launchTemplate' && k !== 'launchTemplateName') {
      p.warn(`${base}.${k}`, 'has no v1 equivalent and is dropped');
    }
  }
  return out;
}

export function convertNodeTemplate(p: Problems, doc: Obj): Obj {
  const spec = isObj(doc.spec) ? doc.spec : {};
  if (!isObj(doc.spec)) p.error('spec', 'required');
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: convertMetadata(doc.metadata),
    spec: convertNodeTemplateSpec(p, spec, 'spec'),
  };
}

/** Keeps name, labels and annotations; drops server-set fields that must not be re-applied. */
export function convertMetadata(v: unknown): Obj {
  const meta = isObj(v) ? v : {};
  const out: Obj = { name: meta.name };
  if (meta.labels !== undefined) out.labels = meta.labels;
  if (meta.annotations !== undefined) out.annotations = meta.annotations;
  return out;
}
