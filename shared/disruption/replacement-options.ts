// Which instance types a consolidation replacement may launch as (docs/disruption.md, Replacement options): Karpenter's
// price filter (only types cheaper than what they replace), which must still satisfy the NodePool's minValues, its
// spot-to-spot rules (the feature gate, 15 cheaper spot types, the 15 cheapest sent), and Karpless's anti-churn
// narrowing to the types within the minimum saving of the cheapest.
import type { NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import { LabelCapacityType, LabelInstanceType, LabelZone } from '../api/labels';
import type { CapacityType, InstanceType, Offering } from '../catalog/types';
import type { PlannedNodeClaim, PlannedOffering } from '../scheduling';
import type { Component } from './batch';
import type { NodeFacts } from './candidate';
import { optionPrice } from './relocate';
import { round } from './sweep';

interface Rules {
  spotToSpotConsolidation: boolean;
  spotToSpotMinTypes: number;
  minSavingFraction: number;
}

const capacityOf = (f: NodeFacts) => f.n.node.capacityType ?? f.n.claim.capacityType;

/** Whether a replacement may launch as spot: its capacity-type requirement allows it (Karpenter's test). */
const mayLaunchSpot = (claim: PlannedNodeClaim): boolean => {
  const req = claim.requirements.find((r) => r.key === LabelCapacityType);
  if (!req) return true;
  if (req.operator === 'In') return req.values?.includes('spot') ?? false;
  if (req.operator === 'NotIn') return !(req.values?.includes('spot') ?? false);
  return req.operator !== 'DoesNotExist';
};

/** Every candidate is spot and a replacement may be spot: Karpenter's spot-to-spot path. */
const isSpotToSpot = (c: Component): boolean =>
  c.replacements.length > 0 && c.members.every((m) => capacityOf(m) === 'spot') && c.replacements.some(mayLaunchSpot);

const CAPACITY_CLASSES: readonly CapacityType[] = ['reserved', 'spot', 'on-demand'];

/** Karpenter's WorstLaunchPrice: the dearest available offering the claim admits, of the first capacity type (reserved,
 * then spot, then on-demand) that has one, so a type counts as cheaper only if wherever the fleet launches it is. */
export function worstLaunchPrice(type: InstanceType, claim: PlannedNodeClaim, only?: CapacityType): number {
  for (const ct of only ? [only] : CAPACITY_CLASSES) {
    const price = optionPrice(type, claim, ct, 'worst');
    if (Number.isFinite(price)) return price;
  }
  return Number.POSITIVE_INFINITY;
}

/** What each replacement must cost less than: what the members cost, less the other replacements' cheapest prices
 * (for one replacement, the members' price, as Karpenter filters). */
function priceCeilings(c: Component): number[] {
  const old = c.members.reduce((s, m) => s + m.price, 0);
  const all = c.replacements.reduce((s, r) => s + r.cheapest.price, 0);
  return c.replacements.map((r) => old - (all - r.cheapest.price));
}

/** Karpenter's RemoveInstanceTypeOptionsByPrice: the claim's options whose worst launch price is below `ceiling`,
 * ordered as Karpenter's OrderByPrice (cheapest offering first; then by name, for a stable order). */
function cheaperOptions(claim: PlannedNodeClaim, ceiling: number, only?: CapacityType): InstanceType[] {
  return claim.instanceTypeOptions
    .filter((t) => worstLaunchPrice(t, claim, only) < ceiling)
    .map((t) => ({ t, price: optionPrice(t, claim, only) }))
    .sort((a, b) => a.price - b.price || a.t.name.localeCompare(b.t.name))
    .map((x) => x.t);
}

const labelValue = (t: InstanceType, key: string): string | undefined =>
  key === LabelInstanceType ? t.name : t.labels[key];

/** How many of `types`, taken in order, it takes to meet every minValues (Karpenter's SatisfiesMinValues), and the
 * keys still short with the distinct values they reached. */
export function minValuesMet(
  types: readonly InstanceType[],
  reqs: readonly NodeSelectorRequirementWithMinValues[],
): { needed: number; unmet: { key: string; have: number; want: number }[] } {
  const asks = reqs.filter((r) => r.minValues !== undefined);
  const seen = new Map(asks.map((r) => [r.key, new Set<string>()]));
  const short = () => asks.filter((r) => (seen.get(r.key)?.size ?? 0) < (r.minValues as number));
  if (short().length === 0) return { needed: 0, unmet: [] };
  for (let i = 0; i < types.length; i++) {
    for (const r of asks) {
      const v = labelValue(types[i] as InstanceType, r.key);
      if (v !== undefined) seen.get(r.key)?.add(v);
    }
    if (short().length === 0) return { needed: i + 1, unmet: [] };
  }
  return {
    needed: types.length,
    unmet: short().map((r) => ({ key: r.key, have: seen.get(r.key)?.size ?? 0, want: r.minValues as number })),
  };
}

/** Why a component's replacements should not launch, or undefined: Karpenter's spot-to-spot gate, then its price
 * filter breaking minValues (MinValuesPolicy BestEffort lowered them in the solve already, so they are checked as
 * the claim carries them), then a single spot node's need for enough cheaper spot types. */
export function replacementBlocker(c: Component, rules: Rules): string | undefined {
  const spot = isSpotToSpot(c);
  if (spot && !rules.spotToSpotConsolidation) {
    return "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node";
  }
  const ceilings = priceCeilings(c);
  for (const [i, claim] of c.replacements.entries()) {
    const ceiling = ceilings[i] as number;
    const cheaper = cheaperOptions(claim, ceiling, spot ? 'spot' : undefined);
    if (cheaper.length === 0) return `can't replace with a cheaper node: no option launches below $${round(ceiling)}/h`;
    const { unmet } = minValuesMet(cheaper, claim.requirements);
    if (unmet.length) {
      const what = unmet.map((u) => `${u.key} (${u.have} of ${u.want})`).join(', ');
      return `filtering by price: minValues requirement is not met for label(s) ${what} among the ${cheaper.length} instance types cheaper than $${round(ceiling)}/h`;
    }
    if (spot && c.members.length === 1 && cheaper.length < rules.spotToSpotMinTypes) {
      return `spot-to-spot replacement needs at least ${rules.spotToSpotMinTypes} cheaper instance types, found ${cheaper.length}`;
    }
  }
  return undefined;
}

/** The options each replacement launches with, once replacementBlocker passed. Spot-to-spot for one node keeps the
 * cheapest max(spotToSpotMinTypes, what minValues needs) cheaper spot types and pins the claim to spot, as Karpenter
 * does: whatever the fleet picks has fewer cheaper types than the rule asks, so it is not replaced again. Otherwise
 * the cheaper types are narrowed to those within the minimum saving of the cheapest (anti-churn), widened by the
 * cheapest carriers of whatever values minValues still needs; with no minimum saving every cheaper type stays. */
export function replacementOptions(c: Component, rules: Rules): PlannedNodeClaim[] {
  const spot = isSpotToSpot(c);
  const ceilings = priceCeilings(c);
  return c.replacements.map((claim, i) => {
    const only = spot ? 'spot' : undefined;
    const cheaper = cheaperOptions(claim, ceilings[i] as number, only);
    if (cheaper.length === 0) return claim;
    if (spot) {
      const keep = Math.max(rules.spotToSpotMinTypes, minValuesMet(cheaper, claim.requirements).needed);
      return withOptions(pinSpot(claim), c.members.length > 1 ? cheaper : cheaper.slice(0, keep), only);
    }
    // No minimum saving (a Balanced pool, or minSavingFraction 0): every cheaper type, as Karpenter launches with.
    if (rules.minSavingFraction <= 0) return withOptions(claim, cheaper);
    const ceiling = claim.cheapest.price / (1 - rules.minSavingFraction) + 1e-12;
    const narrowed = cheaper.filter((t) => optionPrice(t, claim) <= ceiling);
    return withOptions(claim, withMinValues(narrowed, cheaper, claim.requirements));
  });
}

/** The claim with these options; when they no longer hold the type it was priced at, priced at the first one's
 * cheapest admitted offering instead. */
function withOptions(claim: PlannedNodeClaim, options: InstanceType[], only?: CapacityType): PlannedNodeClaim {
  const out = { ...claim, instanceTypeOptions: options };
  const kept = options.some((t) => t.name === claim.cheapest.instanceType);
  const first = options[0];
  if ((kept && (!only || claim.cheapest.capacityType === only)) || !first) return out;
  const price = optionPrice(first, claim, only);
  const off = first.offerings.find(
    (o) => o.available && o.price === price && (!only || o.capacityType === only) && admits(claim, o),
  );
  if (!off) return out;
  const cheapest: PlannedOffering = {
    instanceType: first.name,
    zone: off.zone,
    capacityType: off.capacityType,
    price: off.price,
    ...(off.overlay ? { overlay: off.overlay } : {}),
    ...(first.capacityOverlays ? { capacityOverlays: first.capacityOverlays } : {}),
  };
  return { ...out, cheapest, alternatives: (claim.alternatives ?? []).filter((a) => a.instanceType !== first.name) };
}

/** Whether the claim's zone and capacity-type requirements admit an offering. */
function admits(claim: PlannedNodeClaim, o: Offering): boolean {
  for (const [key, value] of [
    [LabelZone, o.zone],
    [LabelCapacityType, o.capacityType],
  ] as const) {
    const r = claim.requirements.find((q) => q.key === key && q.operator === 'In');
    if (r && !(r.values ?? []).includes(value)) return false;
  }
  return true;
}

/** `narrowed`, plus the cheapest types of `from` that bring values a minValues still lacks, in `from`'s order. */
function withMinValues(
  narrowed: readonly InstanceType[],
  from: readonly InstanceType[],
  reqs: readonly NodeSelectorRequirementWithMinValues[],
): InstanceType[] {
  const keep = new Set(narrowed.length ? narrowed : from.slice(0, 1));
  for (const r of reqs) {
    if (r.minValues === undefined) continue;
    const seen = new Set<string>();
    for (const t of keep) {
      const v = labelValue(t, r.key);
      if (v !== undefined) seen.add(v);
    }
    for (const t of from) {
      if (seen.size >= r.minValues) break;
      const v = labelValue(t, r.key);
      if (v === undefined || seen.has(v)) continue;
      seen.add(v);
      keep.add(t);
    }
  }
  return from.filter((t) => keep.has(t));
}

/** Karpenter adds capacity-type In [spot] to a spot-to-spot replacement, so it cannot fall back to on-demand. */
function pinSpot(claim: PlannedNodeClaim): PlannedNodeClaim {
  const others = claim.requirements.filter((r) => r.key !== LabelCapacityType);
  return {
    ...claim,
    requirements: [...others, { key: LabelCapacityType, operator: 'In', values: ['spot'] }],
    labels: { ...claim.labels, [LabelCapacityType]: 'spot' },
  };
}
