// Validation of a karpenter.sh/v1alpha1 NodeOverlay with the rules of Karpenter's CRD (patterns, bounds, CEL rules)
// and its runtime validation of requirements (docs/api.md, "NodeOverlay").
import { expectInt, expectObject, expectQuantity, expectString, isObj, type Obj, show } from './check';
import { checkRequirements } from './check-scheduling';
import { LabelNodePool } from './labels';
import { OVERLAY_PRICE, OVERLAY_PRICE_ADJUSTMENT, OVERLAY_RESTRICTED_RESOURCES } from './nodeoverlay';
import { at, key, type Problems } from './problems';
import { restrictedLabelReason } from './restricted';

export function validateNodeOverlay(p: Problems, doc: Obj): void {
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  // Karpenter checks requirements as it does a NodePool's (operators, values, restricted domains), at most 100, except
  // that an overlay may select on karpenter.sh/nodepool, a well-known label of every instance type it sees.
  checkRequirements(p, 'spec.requirements', spec.requirements);
  if (Array.isArray(spec.requirements)) {
    if (spec.requirements.length > 100) {
      p.error('spec.requirements', `must have at most 100 requirements, got ${spec.requirements.length}`);
    }
    spec.requirements.forEach((r, i) => {
      const k = isObj(r) && typeof r.key === 'string' ? r.key : undefined;
      const reason = k === undefined || k === LabelNodePool ? undefined : restrictedLabelReason(k);
      if (reason) p.error(at('spec.requirements', i, 'key'), reason);
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
