import { describe, expect, it } from 'vitest';
import { Requirement } from './requirement';
import { narrowed, Requirements } from './requirements';

describe('Requirements', () => {
  const nodePool = Requirements.from([
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
    { key: 'team', operator: 'In', values: ['a', 'b'] },
  ]);
  const wellKnown = (k: string) => k === 'kubernetes.io/arch';

  it('lists its requirements as they are after every add, and a clone apart from its original', () => {
    const r = Requirements.from([{ key: 'team', operator: 'In', values: ['a', 'b'] }]);
    expect(r.list().map(String)).toEqual(['[a, b]']);
    r.add(Requirement.of('team', 'In', ['b', 'c']));
    r.add(Requirement.of('zone', 'In', ['z1']));
    expect(r.list().map((x) => `${x.key} ${x}`)).toEqual(['team [b]', 'zone [z1]']);
    const copy = r.clone();
    copy.add(Requirement.of('zone', 'NotIn', ['z1']));
    copy.add(Requirement.of('arch', 'In', ['arm64']));
    expect(copy.list().map((x) => `${x.key} ${x}`)).toEqual(['team [b]', 'zone DoesNotExist', 'arch [arm64]']);
    expect(r.list().map((x) => `${x.key} ${x}`)).toEqual(['team [b]', 'zone [z1]']);
    expect(r.matchesLabels({ team: 'b', zone: 'z1' })).toBe(true);
    expect(r.matchesLabels({ team: 'a', zone: 'z1' })).toBe(false);
    expect(copy.singleValueLabels()).toEqual({ team: 'b', arch: 'arm64' });
  });

  it('narrows only when an extra requirement changes something', () => {
    const r = Requirements.from([{ key: 'team', operator: 'In', values: ['a', 'b'] }]);
    expect(narrowed(r, [Requirement.of('team', 'In', ['a', 'b', 'c'])])).toBeUndefined();
    const n = narrowed(r, [Requirement.of('team', 'In', ['b', 'c']), Requirement.of('zone', 'In', ['z1'])]);
    expect(n?.list().map((x) => `${x.key} ${x}`)).toEqual(['team [b]', 'zone [z1]']);
    expect(r.list().map((x) => `${x.key} ${x}`)).toEqual(['team [a, b]']);
  });

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
