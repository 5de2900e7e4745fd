// Validation of a karpenter.sh/v1alpha1 NodeOverlay with the rules of Karpenter's CRD (patterns, bounds, CEL rules)
// and its runtime validation of requirements (docs/api.md, "NodeOverlay").
import { expectInt, expectObject, expectQuantity, expectString, isObj, type Obj, show } from './check';
import { checkRequirements } from './check-scheduling';
import { LabelCapacityType, LabelHostname, LabelNodePool, WellKnownLabels } from './labels';
import type { NodeOverlay } from './nodeoverlay';
import { OVERLAY_PRICE, OVERLAY_PRICE_ADJUSTMENT, OVERLAY_RESTRICTED_RESOURCES } from './nodeoverlay';
import { at, key, Problems } from './problems';

/** Karpenter's restricted label domains with the AWS provider's (its IsRestrictedLabel): an overlay may select on any
 * well-known label and on any key outside these domains, kubernetes.io and k8s.io included, but not on
 * kubernetes.io/hostname. NodePools keep their own, stricter rule (shared/api/restricted.ts). */
const OVERLAY_RESTRICTED_DOMAINS = ['karpenter.sh', 'karpenter.k8s.aws'] as const;
const CAPACITY_TYPES: ReadonlySet<string> = new Set(['on-demand', 'spot', 'reserved']);

function overlayKeyReason(k: string): string | undefined {
  if (WellKnownLabels.has(k)) return undefined;
  if (k === LabelHostname) return `label "${LabelHostname}" is restricted`;
  const slash = k.indexOf('/');
  if (slash < 0) return undefined;
  const domain = k.slice(0, slash);
  const hit = OVERLAY_RESTRICTED_DOMAINS.find((d) => domain === d || domain.endsWith(`.${d}`));
  return hit ? `label domain "${hit}" is restricted` : undefined;
}

export function validateNodeOverlay(p: Problems, doc: Obj): void {
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  // Karpenter checks requirements as it does a NodePool's (operators, values, restricted domains), at most 100, except
  // that an overlay may select on karpenter.sh/nodepool, a well-known label of every instance type it sees.
  // The CRD's rule: a bound is one integer of at least 0 (pods may compare with negatives; overlays may not).
  checkRequirements(p, 'spec.requirements', spec.requirements, { nonNegativeBounds: true });
  if (Array.isArray(spec.requirements)) {
    if (spec.requirements.length > 100) {
      p.error('spec.requirements', `must have at most 100 requirements, got ${spec.requirements.length}`);
    }
    spec.requirements.forEach((r, i) => {
      if (!isObj(r)) return;
      const k = typeof r.key === 'string' ? r.key : undefined;
      const reason = k === undefined || k === LabelNodePool ? undefined : overlayKeyReason(k);
      if (reason) p.error(at('spec.requirements', i, 'key'), reason);
      const values = Array.isArray(r.values) ? r.values : [];
      // Karpenter's runtime validation: a capacity-type requirement must name at least one known capacity type.
      if (
        k === LabelCapacityType &&
        r.operator === 'In' &&
        values.length > 0 &&
        !values.some((v) => CAPACITY_TYPES.has(String(v)))
      ) {
        p.error(
          at('spec.requirements', i, 'values'),
          `must include one of on-demand, spot or reserved for ${LabelCapacityType}`,
        );
      }
    });
  }
  expectInt(p, 'spec.weight', spec.weight, { min: 1, max: 10000 });
  const price = expectString(p, 'spec.price', spec.price);
  if (price !== undefined && !OVERLAY_PRICE.test(price)) {
    p.error('spec.price', `${show(price)} must be an unsigned decimal such as "5.00"`);
  }
  const adjustment = expectString(p, 'spec.priceAdjustment', spec.priceAdjustment);
  if (adjustment !== undefined && !OVERLAY_PRICE_ADJUSTMENT.test(adjustment)) {
    p.error(
      'spec.priceAdjustment',
      `${show(adjustment)} must be a signed amount ("+0.5", "-0.25") or percentage ("+10%", "-15%", at least -100%)`,
    );
  }
  if (spec.price !== undefined && spec.priceAdjustment !== undefined) {
    p.error('spec', "cannot set both 'price' and 'priceAdjustment'");
  }
  const capacity = expectObject(p, 'spec.capacity', spec.capacity);
  if (capacity) {
    for (const [name, q] of Object.entries(capacity)) {
      if ((OVERLAY_RESTRICTED_RESOURCES as readonly string[]).includes(name)) {
        p.error(
          at('spec.capacity', key(name)),
          'invalid resource restricted: an overlay adds extended resources only, never cpu, memory, ephemeral-storage or pods',
        );
      } else expectQuantity(p, at('spec.capacity', key(name)), q);
    }
  }
  if (spec.price === undefined && spec.priceAdjustment === undefined && spec.capacity === undefined) {
    p.warn('spec', 'sets neither price, priceAdjustment nor capacity, so it changes nothing');
  }
}

/** The errors of a NodeOverlay read from the cluster, where no parser ran: Karpenter validates each overlay at
 * runtime and applies none that fails (ValidationSucceeded=False, reason RuntimeValidation). */
export function nodeOverlayErrors(overlay: NodeOverlay): string[] {
  const p = new Problems({ file: 'cluster', doc: 1, kind: 'NodeOverlay', name: overlay.metadata?.name ?? '' });
  validateNodeOverlay(p, overlay as unknown as Obj);
  return p.errors;
}
