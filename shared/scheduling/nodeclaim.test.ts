import { describe, expect, it } from 'vitest';
import { fixtureInstanceTypes } from '../../testkit/instance-types';
import { OfferingPrices, type TypeOption } from './instancetypes';
import { minValuesShortfall, orderByPrice, truncate } from './nodeclaim';
import { Requirements } from './requirements';

const options: TypeOption[] = fixtureInstanceTypes().map((it, index) => ({
  index,
  it,
  name: it.name,
  alloc: new Float64Array(),
  capacity: new Float64Array(),
  offerings: it.offerings,
  minPrice: Math.min(...it.offerings.map((o) => o.price)),
}));
const FAMILY = 'karpenter.k8s.aws/instance-family';
const prices = new OfferingPrices(options);

describe('claim options', () => {
  it('orders spot first by price, or on-demand when required', () => {
    const spot = orderByPrice(options, new Requirements(), prices);
    expect(spot.preferSpot).toBe(true);
    expect(spot.options[0]?.name).toBe('m6g.large');
    const od = orderByPrice(
      options,
      Requirements.from([{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }]),
      prices,
    );
    expect(od.preferSpot).toBe(false);
    expect(od.options[0]?.name).toBe('m6g.large');
    expect(od.options[1]?.name).toBe('c5.large');
  });

  it('orders only the options kept, up to the limit, and prefers spot only when a kept option has it', () => {
    const all = orderByPrice(options, new Requirements(), prices).options;
    const withoutCheapest = orderByPrice(options, new Requirements(), prices, 2, (o) => o !== all[0]);
    expect(withoutCheapest.options.map((o) => o.name)).toEqual(all.slice(1, 3).map((o) => o.name));
    // The first two types offered on-demand only: keeping just those, nothing kept has spot.
    const mixed = options.map((o) =>
      o.index < 2 ? { ...o, offerings: o.offerings.filter((x) => x.capacityType === 'on-demand') } : o,
    );
    const mixedPrices = new OfferingPrices(mixed);
    const onDemandOnly = (o: TypeOption) => o.index < 2;
    expect(orderByPrice(mixed, new Requirements(), mixedPrices).preferSpot).toBe(true);
    const kept = orderByPrice(mixed, new Requirements(), mixedPrices, Number.POSITIVE_INFINITY, onDemandOnly);
    expect(kept.preferSpot).toBe(false);
    expect(kept.options.map((o) => o.index).sort()).toEqual([0, 1]);
    // The same options listed afresh: nothing of the previous call is left over.
    expect(orderByPrice(options, new Requirements(), prices).options).toEqual(all);
  });

  it('truncates while keeping minValues', () => {
    const reqs = Requirements.from([{ key: FAMILY, operator: 'Exists', minValues: 4 }]);
    const ordered = orderByPrice(options, reqs, prices).options;
    const cut = truncate(ordered, reqs, 3);
    expect(new Set(cut.map((o) => o.it.labels[FAMILY])).size).toBe(4);
    expect(truncate(ordered, new Requirements(), 3)).toHaveLength(3);
  });

  it('reports a minValues shortfall', () => {
    const reqs = Requirements.from([{ key: FAMILY, operator: 'In', values: ['c5', 'm5'], minValues: 3 }]);
    expect(minValuesShortfall(options, reqs)).toMatch(/only 2 value/);
    expect(
      minValuesShortfall(options, Requirements.from([{ key: FAMILY, operator: 'Exists', minValues: 3 }])),
    ).toBeUndefined();
  });
});
