// CEL rules for restricted label keys, generated from the same lists the parser uses (labels.ts), so the CRD and
// `karpless` reject the same keys.
import {
  LabelDomainExceptions,
  LabelHostname,
  LabelNodePool,
  RestrictedLabelDomains,
  WellKnownLabels,
} from '../labels';
import type { ValidationRule } from './schema';

const BETA_WELL_KNOWN = [
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
];

const domainOf = (subject: string) => `${subject}.find("^([^/]+)")`;

/** Rules over one label key, named by the CEL expression `subject` (`self`, or `x` inside `self.all(x, ...)`). */
export function restrictedLabelRules(subject: string): ValidationRule[] {
  const wellKnown = [...WellKnownLabels, ...BETA_WELL_KNOWN].filter((k) => k !== LabelNodePool);
  const rules: ValidationRule[] = RestrictedLabelDomains.map((domain) => {
    const allowed = wellKnown.filter((k) => (k.split('/')[0] ?? '').endsWith(domain));
    const exceptions = LabelDomainExceptions.filter((e) => e.endsWith(domain));
    const alternatives = [
      ...(allowed.length > 0 ? [`${subject} in [${allowed.map((k) => JSON.stringify(k)).join(', ')}]`] : []),
      ...exceptions.map((e) => `${domainOf(subject)}.endsWith(${JSON.stringify(e)})`),
      `!${domainOf(subject)}.endsWith(${JSON.stringify(domain)})`,
    ];
    return { message: `label domain "${domain}" is restricted`, rule: alternatives.join(' || ') };
  });
  for (const key of [LabelNodePool, LabelHostname]) {
    rules.push({ message: `label "${key}" is restricted`, rule: `${subject} != ${JSON.stringify(key)}` });
  }
  return rules;
}

/** The same rules over every key of a map. */
export function restrictedLabelMapRules(): ValidationRule[] {
  return restrictedLabelRules('x').map((r) => ({ message: r.message, rule: `self.all(x, ${r.rule})` }));
}
