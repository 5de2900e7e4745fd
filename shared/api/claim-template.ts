// What a NodeClaim takes from its NodePool's template when it is written, as Karpenter's NodeClaim does: the
// template's annotations (karpenter.sh/do-not-disrupt among them, which registration copies to the Node), and the
// `expireAfter` and `terminationGracePeriod` the node lives by. A later NodePool change leaves them as they were and
// only drifts the node (docs/disruption.md, "Lifetime stamped at launch"), so a shorter `expireAfter` never expires a
// fleet at once, past its budgets. It also records which NodePool it belongs to by UID, as Karpenter's owner
// reference does (docs/disruption.md, Deleting a NodePool).
import type { NodePool } from './karpenter';
import { AnnotationMinValuesRelaxed } from './labels';
import type { NodeClaim } from './nodeclaim';

export type ClaimTemplateFields = Pick<
  NodeClaim,
  'annotations' | 'expireAfter' | 'terminationGracePeriod' | 'nodePoolUid'
>;

/** The fields a new claim copies from its NodePool's template. `minValuesRelaxed`, for a planned claim, is recorded
 * as Karpenter's scheduler records it on every NodeClaim it creates: "true" or "false". */
export function claimTemplateFields(pool: NodePool | undefined, minValuesRelaxed?: boolean): ClaimTemplateFields {
  if (!pool) return {};
  const template = pool.spec.template;
  const annotations = {
    ...template.metadata?.annotations,
    ...(minValuesRelaxed === undefined ? {} : { [AnnotationMinValuesRelaxed]: String(minValuesRelaxed) }),
  };
  return {
    // A pool with no UID (a manifest the simulator was given without one) leaves the claim to be matched by name.
    ...(pool.metadata.uid ? { nodePoolUid: pool.metadata.uid } : {}),
    ...(Object.keys(annotations).length ? { annotations } : {}),
    expireAfter: template.spec.expireAfter,
    ...(template.spec.terminationGracePeriod !== undefined
      ? { terminationGracePeriod: template.spec.terminationGracePeriod }
      : {}),
  };
}

/** The claim's `expireAfter`: the one stamped at launch; a claim written before stamping reads its NodePool's. */
export function claimExpireAfter(claim: NodeClaim, pool: NodePool | undefined): string | undefined {
  return claim.expireAfter ?? pool?.spec.template.spec.expireAfter;
}

/** The claim's `terminationGracePeriod`: the one stamped at launch (none stamped: none); a claim written before
 * stamping (no `expireAfter` stamped either) reads its NodePool's. */
export function claimTerminationGracePeriod(claim: NodeClaim, pool: NodePool | undefined): string | undefined {
  if (claim.expireAfter !== undefined) return claim.terminationGracePeriod;
  return pool?.spec.template.spec.terminationGracePeriod;
}
