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
