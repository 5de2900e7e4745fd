import { describe, expect, it } from 'vitest';
import { fixtureInstanceTypes } from '../../testkit/instance-types';
import { embeddedSnapshot, instanceTypesFor } from '../catalog';
import { cheapestOffering, OfferingPrices, typeIncompatibility } from './instancetypes';
import { Requirements } from './requirements';

const types = fixtureInstanceTypes();
const m5it = types.find((t) => t.name === 'm5.large')!;
const g4it = types.find((t) => t.name === 'g4dn.xlarge')!;
const m5 = { it: m5it, offerings: m5it.offerings };
const g4 = { it: g4it, offerings: g4it.offerings };

describe('instance-type checks', () => {
  it('matches labels, offerings and undefined instance labels', () => {
    expect(typeIncompatibility(m5, Requirements.fromLabels({ 'kubernetes.io/arch': 'amd64' }))).toBeUndefined();
    expect(typeIncompatibility(m5, Requirements.fromLabels({ 'kubernetes.io/arch': 'arm64' }))).toMatch(/arch=amd64/);
    expect(
      typeIncompatibility(m5, Requirements.from([{ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'Exists' }])),
    ).toMatch(/not defined/);
    expect(
      typeIncompatibility(
        m5,
        Requirements.from([{ key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'DoesNotExist' }]),
      ),
    ).toBeUndefined();
    expect(
      typeIncompatibility(g4, Requirements.fromLabels({ 'karpenter.k8s.aws/instance-gpu-name': 't4' })),
    ).toBeUndefined();
    expect(typeIncompatibility(m5, Requirements.fromLabels({ 'topology.kubernetes.io/zone': 'us-west-2a' }))).toMatch(
      /no available offering/,
    );
    // Custom labels are the NodePool's business, not the type's.
    expect(typeIncompatibility(m5, Requirements.fromLabels({ team: 'x' }))).toBeUndefined();
  });

  it('picks the offering CreateFleet lowest-price would', () => {
    const any = cheapestOffering(m5.offerings, new Requirements(), true);
    expect(any?.capacityType).toBe('spot');
    expect(any?.zone).toBe('us-east-1a');
    const zoneC = cheapestOffering(
      m5.offerings,
      Requirements.fromLabels({ 'topology.kubernetes.io/zone': 'us-east-1c' }),
      true,
    );
    expect(zoneC?.zone).toBe('us-east-1c');
    expect(cheapestOffering(m5.offerings, new Requirements(), false)?.capacityType).toBe('spot');
    const od = Requirements.fromLabels({ 'karpenter.sh/capacity-type': 'on-demand' });
    expect(cheapestOffering(m5.offerings, od, true)?.price).toBe(0.096);
  });
});

describe('OfferingPrices', () => {
  // The catalog's types, some offerings made unavailable and one reserved, against a scan of each offering.
  const catalog = instanceTypesFor(embeddedSnapshot()).slice(0, 120);
  const options = catalog.map((it, index) => ({
    index,
    name: it.name,
    offerings: it.offerings.map((o, k) => ({
      ...o,
      available: o.available && (index + k) % 7 !== 0,
      ...(index === 3 && k === 0 ? { capacityType: 'reserved' as const } : {}),
    })),
  }));
  const prices = new OfferingPrices(options);
  const zones = [...new Set(options.flatMap((o) => o.offerings.map((x) => x.zone)))].sort();
  const cases: Requirements[] = [
    new Requirements(),
    Requirements.fromLabels({ 'topology.kubernetes.io/zone': zones[1] as string }),
    Requirements.fromLabels({ 'karpenter.sh/capacity-type': 'on-demand' }),
    Requirements.from([{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: zones.slice(0, 2) }]),
    Requirements.from([
      { key: 'topology.kubernetes.io/zone', operator: 'In', values: zones.slice(2, 4) },
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'reserved'] },
    ]),
    Requirements.from([{ key: 'topology.k8s.aws/zone-id', operator: 'In', values: ['use1-az1'] }]),
  ];

  it('prices each type at its cheapest allowed offering per capacity type', () => {
    for (const reqs of cases) {
      const table = prices.table(reqs);
      for (const o of options) {
        const allowed = o.offerings.filter(
          (x) =>
            x.available &&
            (reqs.get('topology.kubernetes.io/zone')?.has(x.zone) ?? true) &&
            (reqs.get('karpenter.sh/capacity-type')?.has(x.capacityType) ?? true) &&
            (reqs.get('topology.k8s.aws/zone-id')?.has(x.zoneId ?? undefined) ?? true),
        );
        const min = (ct: string) =>
          Math.min(Number.POSITIVE_INFINITY, ...allowed.filter((x) => x.capacityType === ct).map((x) => x.price));
        expect([table.spot[o.index], table.onDemand[o.index], table.reserved[o.index]], `${o.name} ${reqs}`).toEqual([
          min('spot'),
          min('on-demand'),
          min('reserved'),
        ]);
      }
    }
  });

  it('spans the zones and capacity types each type offers under a zone and capacity-type requirement', () => {
    for (const reqs of cases) {
      const zone = reqs.get('topology.kubernetes.io/zone');
      const ct = reqs.get('karpenter.sh/capacity-type');
      const spans = prices.spans(zone, ct);
      if (!spans) throw new Error('expected spans for six zones');
      const zoneBit = new Map<string, number>();
      const ctBit = new Map<string, number>();
      for (const o of options) {
        for (const x of o.offerings) {
          if (!zoneBit.has(x.zone)) zoneBit.set(x.zone, 1 << zoneBit.size);
          if (!ctBit.has(x.capacityType)) ctBit.set(x.capacityType, 1 << ctBit.size);
        }
      }
      for (const o of options) {
        let z = 0;
        let c = 0;
        for (const x of o.offerings) {
          if ((zone?.has(x.zone) ?? true) && (ct?.has(x.capacityType) ?? true)) {
            z |= zoneBit.get(x.zone) as number;
            c |= ctBit.get(x.capacityType) as number;
          }
        }
        expect([spans.zones[o.index], spans.capacityTypes[o.index]], `${o.name} ${reqs}`).toEqual([z, c]);
      }
    }
  });
});
