// Stable content hashes recorded on a NodeClaim at launch (its NodePool template and EC2NodeClass spec), so drift
// detection can tell later whether either changed. Key order never changes the hash.
import type { EC2NodeClass, NodePool } from './karpenter';
import type { NodeClaim } from './nodeclaim';

/** JSON with object keys sorted at every level and undefined members left out: equal values, equal text. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

function fnv1a(text: string, seed: number): string {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** 64 bits of FNV-1a (two seeds) over the value's canonical JSON. */
export function specHash(value: unknown): string {
  const text = stableJson(value);
  return fnv1a(text, 0x811c9dc5) + fnv1a(text, 0x050c5d1f);
}

/** The NodePool hash a claim records: its template without the requirements, as Karpenter's is. A requirement
 * change drifts a node only when the node's labels stop satisfying it (shared/disruption/drift.ts), so widening an
 * `In` list never does. Must equal shared/disruption's nodePoolTemplateHash. */
export function nodePoolTemplateHash(pool: NodePool): string {
  const { requirements: _requirements, ...spec } = pool.spec.template.spec;
  return specHash({ ...pool.spec.template, spec });
}

/** The EC2NodeClass hash a claim records: its spec without `capacityReservationSelectorTerms`, which Karpenter's
 * hash ignores too: a node drifts on reservations only when the reservation it is in is no longer selected
 * (CloudProvider.isDrifted; docs/aws.md, Capacity reservations), so changing the terms does not replace the class's
 * on-demand and spot nodes. Must equal shared/disruption's nodeClassHash. */
export function nodeClassHash(nodeClass: EC2NodeClass): string {
  const { capacityReservationSelectorTerms: _terms, ...spec } = nodeClass.spec;
  return specHash(spec);
}

/**
 * Bump whenever what the hashes cover, or how they are computed, changes. A claim recorded under another version
 * cannot be compared, since its hash would differ with nothing changed and every node of every cluster would drift at
 * once. Drift skips the comparison for it instead, and the next planning sweep re-stamps it with today's hashes
 * (Karpenter's nodepool-hash-version does the same). A change made to the template in between goes unnoticed for such
 * a claim: the price of never churning a fleet over an upgrade.
 * Version 2: the NodePool hash leaves the requirements out on every path (version 1 claims may carry the full
 * template hash of a disruption replacement).
 * Version 3: the EC2NodeClass hash leaves capacityReservationSelectorTerms out.
 */
export const CLAIM_HASH_VERSION = 3;

/** The hashes a new NodeClaim records, exactly the ones drift detection compares. Every path that creates a claim
 * (provisioning, which interruption replacements go through, and disruption replacements) calls this, so none can
 * record a hash drift reads differently: a replacement that recorded the full template hash was drifted by the
 * next requirement change, however harmless, and replaced again. */
export function claimHashes(
  nodePool: NodePool | undefined,
  nodeClass: EC2NodeClass | undefined,
): Pick<NodeClaim, 'nodePoolHash' | 'nodeClassHash' | 'hashVersion'> {
  return {
    ...(nodePool ? { nodePoolHash: nodePoolTemplateHash(nodePool) } : {}),
    ...(nodeClass ? { nodeClassHash: nodeClassHash(nodeClass) } : {}),
    hashVersion: CLAIM_HASH_VERSION,
  };
}
