// NodeClaim, offering and decision records <-> DynamoDB items. Claims are stored attribute for attribute (not as
// one JSON blob) so filters, the instanceId GSI and the console can read them.
import { claimExpiresAt, type DecisionRecord, type NodeClaim } from '../../api/nodeclaim';
import type { UnavailableOffering } from '../../catalog/types';
import { DECISION_TTL_MS, ENTITY_ATTRIBUTE, Entity, keys, PK, SK, TTL_ATTRIBUTE } from './schema';

export type Item = Record<string, unknown>;

const STORAGE_ONLY = new Set([PK, SK, ENTITY_ATTRIBUTE, TTL_ATTRIBUTE]);

function strip(item: Item): Item {
  const out: Item = {};
  for (const [k, v] of Object.entries(item)) if (!STORAGE_ONLY.has(k)) out[k] = v;
  return out;
}

/** A Terminated claim carries the TTL, derived from its own state time on every write (a transition to Terminated, or
 * a create or update of a claim already there), so a retried write never moves its expiry. */
export function claimToItem(cluster: string, claim: NodeClaim): Item {
  const expiresAt = claimExpiresAt(claim);
  return {
    ...claim,
    [PK]: keys.cluster(cluster),
    [SK]: keys.nodeClaim(claim.name),
    [ENTITY_ATTRIBUTE]: Entity.NodeClaim,
    ...(expiresAt === undefined ? {} : { [TTL_ATTRIBUTE]: expiresAt / 1000 }),
  };
}

export function itemToClaim(item: Item): NodeClaim {
  return strip(item) as unknown as NodeClaim;
}

export function offeringToItem(cluster: string, o: UnavailableOffering): Item {
  return {
    [PK]: keys.cluster(cluster),
    [SK]: keys.offering(o.instanceType, o.zone, o.capacityType, o.reservationId),
    [ENTITY_ATTRIBUTE]: Entity.Offering,
    instanceType: o.instanceType,
    zone: o.zone,
    capacityType: o.capacityType,
    ...(o.reservationId ? { reservationId: o.reservationId } : {}),
    expiresAtMs: o.expiresAt,
    // DynamoDB TTL wants epoch seconds; the exact expiry the reads filter on stays in expiresAtMs.
    [TTL_ATTRIBUTE]: Math.ceil(o.expiresAt / 1000),
    reason: o.reason,
  };
}

export function itemToOffering(item: Item): UnavailableOffering {
  const o: UnavailableOffering = {
    instanceType: String(item.instanceType),
    zone: String(item.zone),
    capacityType: item.capacityType === 'spot' || item.capacityType === 'reserved' ? item.capacityType : 'on-demand',
    expiresAt: Number(item.expiresAtMs),
  };
  if (typeof item.reservationId === 'string') o.reservationId = item.reservationId;
  if (typeof item.reason === 'string') o.reason = item.reason;
  return o;
}

/** The decision itself plus one copy per claim it names (the per-claim index): every claim in `claims`, which is the
 * uncut list when capDecision shortened the record's own. */
export function decisionToItems(cluster: string, d: DecisionRecord, claims: readonly string[] = d.nodeClaims): Item[] {
  const expiresAt = Math.ceil((Date.parse(d.at) + DECISION_TTL_MS) / 1000);
  const body = { ...d, [PK]: keys.cluster(cluster), [TTL_ATTRIBUTE]: expiresAt };
  const items: Item[] = [{ ...body, [SK]: keys.decision(d.at, d.id), [ENTITY_ATTRIBUTE]: Entity.Decision }];
  for (const claim of new Set(claims)) {
    items.push({ ...body, [SK]: keys.claimDecision(claim, d.at, d.id), [ENTITY_ATTRIBUTE]: Entity.ClaimDecision });
  }
  return items;
}

export function itemToDecision(item: Item): DecisionRecord {
  return strip(item) as unknown as DecisionRecord;
}
