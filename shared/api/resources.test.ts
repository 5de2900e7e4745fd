import { describe, expect, it } from 'vitest';
import {
  add,
  addInto,
  firstExceeded,
  fits,
  formatResourceList,
  isZero,
  max,
  parseResourceList,
  subtract,
} from './resources';

describe('resource lists', () => {
  const small = parseResourceList({ cpu: '500m', memory: '1Gi' });
  const gpu = parseResourceList({ cpu: 1, 'nvidia.com/gpu': 1 });

  it('parses quantity maps into engine units', () => {
    expect(small).toEqual({ cpu: 500, memory: 2 ** 30 });
    expect(parseResourceList(undefined)).toEqual({});
  });

  it('adds, subtracts and takes the element-wise max without mutating inputs', () => {
    expect(add(small, gpu)).toEqual({ cpu: 1500, memory: 2 ** 30, 'nvidia.com/gpu': 1 });
    expect(subtract(small, { cpu: 200 })).toEqual({ cpu: 300, memory: 2 ** 30 });
    expect(max(small, gpu)).toEqual({ cpu: 1000, memory: 2 ** 30, 'nvidia.com/gpu': 1 });
    expect(small).toEqual({ cpu: 500, memory: 2 ** 30 });
  });

  it('adds in place', () => {
    const acc = { cpu: 100 };
    expect(addInto(acc, small)).toBe(acc);
    expect(acc).toEqual({ cpu: 600, memory: 2 ** 30 });
  });

  it('fits only when every requested resource is available, missing ones counting as zero', () => {
    const node = { cpu: 1000, memory: 2 ** 31 };
    expect(fits(small, node)).toBe(true);
    expect(fits(gpu, node)).toBe(false);
    expect(firstExceeded(gpu, node)).toBe('nvidia.com/gpu');
    expect(firstExceeded(small, node)).toBeUndefined();
    expect(fits({ 'nvidia.com/gpu': 0 }, node)).toBe(true);
  });

  it('knows an empty list', () => {
    expect(isZero({ cpu: 0, memory: 0 })).toBe(true);
    expect(isZero(small)).toBe(false);
  });

  it('formats back to quantity strings', () => {
    expect(formatResourceList(add(small, gpu))).toEqual({ cpu: '1500m', memory: '1Gi', 'nvidia.com/gpu': '1' });
  });
});
