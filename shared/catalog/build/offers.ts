// What no public table holds, derived deterministically: which us-east-1 zones offer each type, and its spot price
// per zone. Every figure here is an estimate and is marked as one where it is shown (docs/catalog.md, "Spot prices
// are estimates").
import type { TypeFacts } from './facts';

export const ZONES = [
  { name: 'us-east-1a', id: 'use1-az4' },
  { name: 'us-east-1b', id: 'use1-az6' },
  { name: 'us-east-1c', id: 'use1-az1' },
  { name: 'us-east-1d', id: 'use1-az2' },
  { name: 'us-east-1e', id: 'use1-az3' },
  { name: 'us-east-1f', id: 'use1-az5' },
];

/** Zones (by id) for families that AWS offers in only part of the region. */
const ZONE_IDS_BY_FAMILY: Record<string, string[]> = {
  p5: ['use1-az4', 'use1-az6'],
  p4d: ['use1-az2', 'use1-az4', 'use1-az6'],
  g6e: ['use1-az1', 'use1-az4', 'use1-az6'],
  inf1: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  trn1: ['use1-az1', 'use1-az4', 'use1-az6'],
  inf2: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  x2idn: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  x2iedn: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
  r7iz: ['use1-az1', 'use1-az2', 'use1-az4', 'use1-az6'],
};
/** use1-az3 is the constrained zone: it offers only older x86 families. */
const OLD_ZONE_ID = 'use1-az3';
const OLD_ZONE_FAMILIES = new Set([
  'm5',
  'm5a',
  'm5d',
  'c5',
  'c5a',
  'c5d',
  'c5n',
  'r5',
  'r5a',
  'r5d',
  't3',
  't3a',
  'i3',
]);

/** FNV-1a, mapped to [0, 1): a stable per-key draw, so the snapshot is identical on every run. */
export function draw(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

/** The family-typical spot discount off on-demand (docs/catalog.md, "Spot prices are estimates"). */
export function spotDiscount(t: TypeFacts): number {
  const { category, generation } = t;
  let d = 0.62;
  if (category === 't') d = 0.68;
  else if (['i', 'im', 'is', 'd'].includes(category)) d = 0.7;
  else if (['x', 'z'].includes(category)) d = 0.68;
  else if (category === 'p') d = 0.45;
  else if (category === 'inf') d = 0.72;
  else if (category === 'trn') d = 0.7;
  else if (t.family === 'g6e') d = 0.55;
  else if (t.capabilityFlex) d = 0.6;
  else if (generation >= 8) d = 0.5;
  else if (generation >= 7) d = 0.55;
  if (/\d[a-z]*n[a-z]*$/.test(t.family) && category !== 'inf' && generation <= 6) d = 0.66;
  return t.bareMetal ? d - 0.05 : d;
}

export function zonesFor(t: TypeFacts): string[] {
  const pinned = ZONE_IDS_BY_FAMILY[t.family];
  let zones = ZONES.filter((z) => (pinned ? pinned.includes(z.id) : z.id !== OLD_ZONE_ID));
  if (!pinned && OLD_ZONE_FAMILIES.has(t.family) && !t.bareMetal) zones = ZONES.slice();
  if (!pinned && t.generation >= 8) zones = zones.filter((z) => z.id !== 'use1-az5');
  if (!pinned && (t.bareMetal || t.vcpu >= 96)) {
    const kept = zones.filter((z) => draw(`${t.name}|${z.name}|zone`) >= 0.25);
    zones = kept.length >= 2 ? kept : zones.slice(0, 2);
  }
  return zones.map((z) => z.name);
}

/** Spot $/h per zone: the discount times a seeded ±12.5 % swing, capped at 90 % of on-demand; risky types skip some. */
export function spotPrices(t: TypeFacts, onDemand: number, zones: string[]): Record<string, number> {
  const risky = t.category === 'p' || t.bareMetal || t.vcpu >= 96;
  const discount = spotDiscount(t);
  const out: Record<string, number> = {};
  for (const zone of zones) {
    if (risky && draw(`${t.name}|${zone}|nospot`) < 0.2) continue;
    const swing = 1 + 0.25 * (draw(`${t.name}|${zone}|spot`) - 0.5);
    const price = Math.min(onDemand * 0.9, onDemand * (1 - discount) * swing);
    out[zone] = Math.max(0.0001, Math.round(price * 10000) / 10000);
  }
  return out;
}
