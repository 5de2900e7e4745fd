// Which label keys a NodePool may use, with Karpenter's rules: a NodePool may constrain or set well-known labels, but
// not `karpenter.sh/nodepool` (Karpenter sets it) or `kubernetes.io/hostname`, and nothing else under the
// kubernetes.io, k8s.io, karpenter.sh and karpenter.k8s.aws domains except the exception domains.
import { LabelDomainExceptions, LabelHostname, LabelNodePool, RestrictedLabelDomains, WellKnownLabels } from './labels';
import { nearest } from './nearest';

/** Deprecated beta spellings Kubernetes still accepts on nodes. */
const BETA_WELL_KNOWN: ReadonlySet<string> = new Set([
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
]);

/** Why a NodePool may not use this label key, or undefined when it may. */
export function restrictedLabelReason(labelKey: string): string | undefined {
  if (labelKey === LabelNodePool) return `label "${LabelNodePool}" is restricted`;
  if (labelKey === LabelHostname) return `label "${LabelHostname}" is restricted`;
  if (WellKnownLabels.has(labelKey) || BETA_WELL_KNOWN.has(labelKey)) return undefined;
  const slash = labelKey.indexOf('/');
  if (slash < 0) return undefined;
  const domain = labelKey.slice(0, slash);
  if (LabelDomainExceptions.some((d) => domain.endsWith(d))) return undefined;
  const restricted = RestrictedLabelDomains.find((d) => domain.endsWith(d));
  return restricted ? `label domain "${restricted}" is restricted${wellKnownLabelHint(labelKey)}` : undefined;
}

/** " (did you mean <label>?)" when a restricted key is a few edits from a well-known label, else "". */
export function wellKnownLabelHint(labelKey: string): string {
  const near = nearest(labelKey, WellKnownLabels, 3);
  return near ? ` (did you mean ${near}?)` : '';
}
