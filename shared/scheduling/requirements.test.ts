import { describe, expect, it } from 'vitest';
import { Requirements } from './requirements';

describe('Requirements', () => {
  const nodePool = Requirements.from([
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
    { key: 'team', operator: 'In', values: ['a', 'b'] },
  ]);
  const wellKnown = (k: string) => k === 'kubernetes.io/arch';

  it('accepts a pod whose requirements intersect', () => {
    expect(nodePool.incompatibility(Requirements.fromLabels({ team: 'a' }), wellKnown)).toBeUndefined();
  });

  it('names the key and both sides when values do not intersect', () => {
    const why = nodePool.incompatibility(
      Requirements.from([{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }]),
      wellKnown,
    );
    expect(why).toBe(
      'incompatible requirement karpenter.sh/capacity-type: pod requires [on-demand], nodepool allows [spot]',
    );
  });

  it('rejects an undeclared custom label but allows well-known and NotIn ones', () => {
    expect(nodePool.incompatibility(Requirements.fromLabels({ owner: 'x' }), wellKnown)).toMatch(
      /label "owner" does not have known values/,
    );
    expect(
      nodePool.incompatibility(Requirements.fromLabels({ 'kubernetes.io/arch': 'arm64' }), wellKnown),
    ).toBeUndefined();
    expect(
      nodePool.incompatibility(Requirements.from([{ key: 'owner', operator: 'NotIn', values: ['x'] }]), wellKnown),
    ).toBeUndefined();
  });

  it('intersects on add and reports single-valued labels', () => {
    const r = nodePool.clone().addAll(Requirements.fromLabels({ team: 'b' }));
    expect(r.singleValueLabels()).toEqual({ 'karpenter.sh/capacity-type': 'spot', team: 'b' });
    expect(nodePool.get('team')?.size).toBe(2);
  });

  it('matches node labels', () => {
    expect(nodePool.matchesLabels({ 'karpenter.sh/capacity-type': 'spot', team: 'a' })).toBe(true);
    expect(nodePool.firstUnmatchedLabel({ 'karpenter.sh/capacity-type': 'spot' })?.key).toBe('team');
  });
});
