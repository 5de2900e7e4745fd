import { describe, expect, it } from 'vitest';
import { fixtureType } from '../../testkit/sim-fixtures';
import { typesAllowedBy } from './pool-types';

const small = fixtureType('m5.large', 2, [
  { zone: 'us-east-1a', capacityType: 'spot', price: 0.03 },
  { zone: 'us-east-1b', capacityType: 'on-demand', price: 0.096 },
]);
small.labels['karpenter.k8s.aws/instance-cpu'] = '2';
const big = fixtureType('m5.xlarge', 4, [{ zone: 'us-east-1a', capacityType: 'spot', price: 0.05 }]);
big.labels['karpenter.k8s.aws/instance-cpu'] = '4';

describe('typesAllowedBy', () => {
  it('filters types by label requirements and offerings by zone and capacity type', () => {
    const out = typesAllowedBy(
      [
        { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Lt', values: ['4'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
      ],
      [small, big],
    );
    expect(out.map((t) => t.name)).toEqual(['m5.large']);
    expect(out[0]?.offerings).toEqual([expect.objectContaining({ zone: 'us-east-1b', capacityType: 'on-demand' })]);
  });

  it('drops types left without offerings and ignores keys the types do not label', () => {
    const out = typesAllowedBy(
      [
        { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['us-east-1a'] },
        { key: 'team', operator: 'In', values: ['web'] },
      ],
      [small, big],
    );
    expect(out.map((t) => t.name)).toEqual(['m5.large']);
    expect(typesAllowedBy([{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }], [small, big])).toEqual(
      [],
    );
  });
});
