// The hashes earlier CLAIM_HASH_VERSIONs recorded (shared/api/hash.ts), kept so the re-stamp can tell whether a
// claim was already drifted under its own version: Karpenter leaves a drifted NodeClaim's stale hash in place when
// the hash version changes, so the node stays drifted instead of being forgiven by the upgrade (docs/disruption.md,
// Drift). Version 1 is not here: its NodePool hash was computed two ways, so it cannot be read back.

import { specHash } from './hash';
import type { EC2NodeClass, NodePool } from './karpenter';

export interface PreviousHashes {
  nodePool(pool: NodePool): string;
  nodeClass(nodeClass: EC2NodeClass): string;
}

/** Versions 2 and 3: the template without requirements, as written. */
function templateWithoutRequirements(pool: NodePool): string {
  const { requirements: _requirements, ...spec } = pool.spec.template.spec;
  return specHash({ ...pool.spec.template, spec });
}

export const PREVIOUS_HASHES: Readonly<Record<number, PreviousHashes>> = {
  2: { nodePool: templateWithoutRequirements, nodeClass: (c) => specHash(c.spec) },
  3: {
    nodePool: templateWithoutRequirements,
    nodeClass: (c) => {
      const { capacityReservationSelectorTerms: _terms, ...spec } = c.spec;
      return specHash(spec);
    },
  },
};
