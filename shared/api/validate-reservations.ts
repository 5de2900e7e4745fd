// Validation of an EC2NodeClass's capacityReservationSelectorTerms, with the rules of Karpenter's CRD: each term names
// an id, or tags and/or an instance match criteria (optionally with the owning account); an id stands alone.
import { expectArray, expectEnum, expectObject, expectString, expectStringMap, show } from './check';
import { at, type Problems } from './problems';

const PATH = 'spec.capacityReservationSelectorTerms';
const FIELDS = ['tags', 'id', 'ownerID', 'instanceMatchCriteria'];
export const RESERVATION_ID = /^cr-[0-9a-z]+$/;
export const OWNER_ID = /^[0-9]{12}$/;

export function validateReservationTerms(p: Problems, v: unknown): void {
  const terms = expectArray(p, PATH, v);
  if (!terms) return;
  if (terms.length > 30) p.error(PATH, `must have at most 30 terms, got ${terms.length}`);
  terms.forEach((item, i) => {
    const tp = at(PATH, i);
    const term = expectObject(p, tp, item, true);
    if (!term) return;
    for (const k of Object.keys(term)) {
      if (!FIELDS.includes(k)) p.error(at(tp, k), `is not a selector field; use one of ${FIELDS.join(', ')}`);
    }
    const id = expectString(p, at(tp, 'id'), term.id);
    const owner = expectString(p, at(tp, 'ownerID'), term.ownerID);
    const tags = expectStringMap(p, at(tp, 'tags'), term.tags);
    expectEnum(p, at(tp, 'instanceMatchCriteria'), term.instanceMatchCriteria, ['open', 'targeted']);
    const criteria = term.instanceMatchCriteria;
    if (term.id === undefined && term.tags === undefined && criteria === undefined)
      p.error(tp, "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']");
    if (id !== undefined && !RESERVATION_ID.test(id))
      p.error(at(tp, 'id'), `${show(id)} does not match ${RESERVATION_ID.source}`);
    if (owner !== undefined && !OWNER_ID.test(owner))
      p.error(at(tp, 'ownerID'), `${show(owner)} does not match ${OWNER_ID.source}`);
    if (term.id !== undefined && (term.tags !== undefined || term.ownerID !== undefined || criteria !== undefined)) {
      p.error(
        tp,
        "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
      );
    }
    if (tags) {
      if (Object.keys(tags).length > 20) p.error(at(tp, 'tags'), 'must have at most 20 tags');
      for (const [k, val] of Object.entries(tags)) {
        if (k === '' || val === '')
          p.error(at(tp, 'tags', `[${JSON.stringify(k)}]`), "empty tag keys or values aren't supported");
      }
    }
  });
}
