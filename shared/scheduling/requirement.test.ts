import { describe, expect, it } from 'vitest';
import { Requirement, RequirementError } from './requirement';

const r = Requirement.of;

describe('Requirement', () => {
  it('In allows exactly its values and rejects absence', () => {
    const req = r('k', 'In', ['a', 'b']);
    expect(req.has('a')).toBe(true);
    expect(req.has('c')).toBe(false);
    expect(req.has(undefined)).toBe(false);
    expect(req.operator()).toBe('In');
  });

  it('NotIn and DoesNotExist allow absence; Exists does not', () => {
    expect(r('k', 'NotIn', ['a']).has(undefined)).toBe(true);
    expect(r('k', 'NotIn', ['a']).has('a')).toBe(false);
    expect(r('k', 'DoesNotExist').has(undefined)).toBe(true);
    expect(r('k', 'DoesNotExist').has('x')).toBe(false);
    expect(r('k', 'Exists').has(undefined)).toBe(false);
    expect(r('k', 'Exists').has('x')).toBe(true);
  });

  it('Gt, Lt, Gte and Lte compare integers and reject non-integers', () => {
    expect(r('k', 'Gt', ['4']).has('5')).toBe(true);
    expect(r('k', 'Gt', ['4']).has('4')).toBe(false);
    expect(r('k', 'Gte', ['4']).has('4')).toBe(true);
    expect(r('k', 'Gte', ['4']).has('3')).toBe(false);
    expect(r('k', 'Lt', ['4']).has('3')).toBe(true);
    expect(r('k', 'Lt', ['4']).has('4')).toBe(false);
    expect(r('k', 'Lte', ['4']).has('4')).toBe(true);
    expect(r('k', 'Lte', ['4']).has('5')).toBe(false);
    expect(r('k', 'Gt', ['4']).has('abc')).toBe(false);
    expect(r('k', 'Gt', ['4']).has(undefined)).toBe(false);
  });

  it('rejects Gt without exactly one integer', () => {
    expect(() => r('k', 'Gt', ['a'])).toThrow(RequirementError);
    expect(() => r('k', 'Lt', [])).toThrow(/exactly one integer/);
  });

  it('intersects In with In, NotIn and bounds', () => {
    expect([...r('k', 'In', ['a', 'b']).intersect(r('k', 'In', ['b', 'c'])).values]).toEqual(['b']);
    expect([...r('k', 'In', ['a', 'b']).intersect(r('k', 'NotIn', ['a'])).values]).toEqual(['b']);
    expect([
      ...r('k', 'In', ['1', '5', '9'])
        .intersect(r('k', 'Gt', ['2']))
        .intersect(r('k', 'Lt', ['9'])).values,
    ]).toEqual(['5']);
  });

  it('intersects complements into a wider complement', () => {
    const x = r('k', 'NotIn', ['a']).intersect(r('k', 'NotIn', ['b']));
    expect(x.complement).toBe(true);
    expect(x.has('a')).toBe(false);
    expect(x.has('b')).toBe(false);
    expect(x.has('c')).toBe(true);
  });

  it('collapses empty integer ranges to nothing', () => {
    const x = r('k', 'Gt', ['4']).intersect(r('k', 'Lt', ['5']));
    expect(x.size).toBe(0);
    expect(
      r('k', 'Gte', ['4'])
        .intersect(r('k', 'Lte', ['4']))
        .has('4'),
    ).toBe(true);
  });

  it('keeps the larger minValues', () => {
    const x = r('k', 'In', ['a', 'b', 'c'], 2).intersect(r('k', 'Exists', [], 3));
    expect(x.minValues).toBe(3);
  });

  it('treats two absence-tolerant requirements as intersecting', () => {
    expect(r('k', 'NotIn', ['a']).intersects(r('k', 'DoesNotExist'))).toBe(true);
    expect(r('k', 'Exists').intersects(r('k', 'DoesNotExist'))).toBe(false);
    expect(r('k', 'In', ['a']).intersects(r('k', 'In', ['b']))).toBe(false);
  });

  it('round-trips to node selector form', () => {
    expect(r('k', 'In', ['b', 'a'], 2).toNodeSelector()).toEqual([
      { key: 'k', operator: 'In', values: ['a', 'b'], minValues: 2 },
    ]);
    expect(
      r('k', 'Gt', ['3'])
        .intersect(r('k', 'Lt', ['9']))
        .toNodeSelector(),
    ).toEqual([
      { key: 'k', operator: 'Gt', values: ['3'] },
      { key: 'k', operator: 'Lt', values: ['9'] },
    ]);
  });
});
