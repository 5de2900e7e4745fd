import { describe, expect, it } from 'vitest';
import { ec2NodeClass } from '../../testkit/builders';
import type { EC2NodeClass } from '../api/karpenter';
import { instanceTypesFor } from './instance-types';
import { loadCatalog } from './load';
import { cheapestPrice } from './offerings';
import type { Catalog } from './types';

const catalog = loadCatalog();
const nodeClass = (maxPods: number): EC2NodeClass =>
  ec2NodeClass(
    { subnetSelectorTerms: [], securityGroupSelectorTerms: [], role: undefined, kubelet: { maxPods } },
    `np-${maxPods}`,
  );
const find = (types: ReturnType<typeof instanceTypesFor>, name: string) => {
  const t = types.find((x) => x.name === name);
  if (!t) throw new Error(name);
  return t;
};

describe('instanceTypesFor', () => {
  it('lists every catalog type with an offering per zone and capacity type', () => {
    const types = instanceTypesFor(catalog);
    expect(types).toHaveLength(catalog.types.length);
    const m5 = find(types, 'm5.large');
    expect(m5.offerings).toHaveLength(12);
    expect(m5.offerings.every((o) => o.available)).toBe(true);
    const od = m5.offerings.filter((o) => o.capacityType === 'on-demand');
    expect(od.map((o) => o.price)).toEqual(Array(6).fill(0.096));
    expect(m5.offerings.find((o) => o.zone === 'us-east-1a')?.zoneId).toBe('use1-az4');
    for (const o of m5.offerings.filter((x) => x.capacityType === 'spot')) {
      expect(o.price).toBeGreaterThan(0);
      expect(o.price).toBeLessThan(0.096);
    }
  });

  it('offers no spot where the type has no spot price', () => {
    const p5 = find(instanceTypesFor(catalog), 'p5.48xlarge');
    const zones = new Set(p5.offerings.map((o) => o.zone));
    expect([...zones].sort()).toEqual([...p5.info.zones].sort());
    const spotZones = p5.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.zone);
    expect(spotZones.sort()).toEqual(Object.keys(p5.info.spotPrice).sort());
  });

  it('marks unexpired unavailable offerings and ignores expired ones', () => {
    const now = 1_000_000;
    const types = instanceTypesFor(catalog, undefined, {
      now,
      unavailable: [
        { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', expiresAt: now + 60_000 },
        { instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'on-demand', expiresAt: now - 1 },
        { instanceType: 'c5.xlarge', zone: 'us-east-1c', capacityType: 'on-demand', expiresAt: now + 1 },
      ],
    });
    const m5 = find(types, 'm5.large');
    const off = m5.offerings.filter((o) => !o.available).map((o) => `${o.zone}/${o.capacityType}`);
    expect(off).toEqual(['us-east-1a/spot']);
    expect(find(types, 'c5.xlarge').offerings.filter((o) => !o.available)).toHaveLength(1);
    // The shared, cached view is untouched.
    expect(find(instanceTypesFor(catalog), 'm5.large').offerings.every((o) => o.available)).toBe(true);
  });

  it('treats an offering as unavailable until the moment it expires', () => {
    const unavailable = [
      { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' as const, expiresAt: 100 },
    ];
    const at = (now: number) =>
      find(instanceTypesFor(catalog, undefined, { unavailable, now }), 'm5.large').offerings.filter(
        (o) => !o.available,
      );
    expect(at(99)).toHaveLength(1);
    expect(at(100)).toHaveLength(0);
  });

  it('finds the cheapest available price per capacity type', () => {
    const m5 = find(instanceTypesFor(catalog), 'm5.large');
    const cheapestSpot = Math.min(...Object.values(m5.info.spotPrice));
    expect(cheapestPrice(m5.offerings, 'spot')).toBe(cheapestSpot);
    expect(cheapestPrice(m5.offerings, 'on-demand')).toBe(0.096);
    expect(cheapestPrice([], 'spot')).toBeUndefined();
  });

  it('memoizes per catalog and allocatable settings', () => {
    const a = instanceTypesFor(catalog, nodeClass(110));
    expect(instanceTypesFor(catalog, nodeClass(110))).toBe(a);
    const b = instanceTypesFor(catalog, nodeClass(50));
    expect(b).not.toBe(a);
    expect(find(a, 'm5.large').capacity.pods).toBe(110);
    expect(find(b, 'm5.large').capacity.pods).toBe(50);
    expect(instanceTypesFor(catalog)).toBe(instanceTypesFor(catalog));
    const copy: Catalog = { ...catalog, types: catalog.types.slice(0, 3) };
    expect(instanceTypesFor(copy)).toHaveLength(3);
  });

  it('builds the whole snapshot quickly and serves warm calls from the cache', () => {
    const fresh: Catalog = { ...catalog, types: catalog.types.map((t) => ({ ...t })) };
    const start = performance.now();
    instanceTypesFor(fresh, nodeClass(77));
    const cold = performance.now() - start;
    const warmStart = performance.now();
    for (let i = 0; i < 100; i++) instanceTypesFor(fresh, nodeClass(77));
    const warm = (performance.now() - warmStart) / 100;
    // Generous bounds: the machine is shared; docs/catalog.md records the quiet-machine figures.
    expect(cold).toBeLessThan(500);
    expect(warm).toBeLessThan(5);
  });
});
