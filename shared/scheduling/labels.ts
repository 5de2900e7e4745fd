// Which label keys a pod may constrain, and which keys every node gets from its instance type.
import {
  LabelDomainExceptions,
  LabelHostname,
  LabelNodeInitialized,
  LabelNodeRegistered,
  RestrictedLabelDomains,
  WellKnownLabels,
} from '../api/labels';
import { wellKnownLabelHint } from '../api/restricted';

const RESTRICTED_KEYS = new Set([LabelHostname, LabelNodeInitialized, LabelNodeRegistered]);

function domainOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function inDomain(domain: string, suffix: string): boolean {
  return domain === suffix || domain.endsWith(`.${suffix}`);
}

/**
 * Why a pod may not require this label key, or undefined when it may. Well-known labels are fine; anything else in
 * a Kubernetes or Karpenter domain is set by the system and cannot be asked for.
 */
export function restrictedLabelReason(key: string): string | undefined {
  if (WellKnownLabels.has(key)) return undefined;
  const domain = domainOf(key);
  const restricted =
    RESTRICTED_KEYS.has(key) ||
    (!LabelDomainExceptions.some((d) => inDomain(domain, d)) &&
      RestrictedLabelDomains.some((d) => inDomain(domain, d)));
  if (!restricted) return undefined;
  return `label ${key} is restricted${wellKnownLabelHint(key)}; use a well-known label or a custom label outside ${RestrictedLabelDomains.join(', ')}`;
}

/** Labels an instance type (or its offerings) defines for every node, so a pod may require them without a NodePool declaring them. */
export function isInstanceTypeLabel(key: string): boolean {
  return WellKnownLabels.has(key);
}
