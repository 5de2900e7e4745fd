import { describe, expect, it } from 'vitest';
import { parseInstanceTypeName } from './names';

describe('parseInstanceTypeName', () => {
  it('splits family and size and reads category and generation', () => {
    expect(parseInstanceTypeName('m5.large')).toEqual({ family: 'm5', size: 'large', category: 'm', generation: 5 });
    expect(parseInstanceTypeName('m7i-flex.2xlarge')).toEqual({
      family: 'm7i-flex',
      size: '2xlarge',
      category: 'm',
      generation: 7,
    });
    expect(parseInstanceTypeName('inf2.48xlarge')).toMatchObject({ category: 'inf', generation: 2 });
    expect(parseInstanceTypeName('x2iedn.metal')).toMatchObject({ category: 'x', generation: 2, size: 'metal' });
    expect(parseInstanceTypeName('u-6tb1.112xlarge')).toMatchObject({ family: 'u-6tb1', category: 'u', generation: 1 });
    expect(parseInstanceTypeName('c7a.metal-48xl')).toMatchObject({ size: 'metal-48xl' });
  });

  it('rejects names without a family and size', () => {
    expect(parseInstanceTypeName('m5')).toBeUndefined();
    expect(parseInstanceTypeName('m5.')).toBeUndefined();
    expect(parseInstanceTypeName('.large')).toBeUndefined();
    expect(parseInstanceTypeName('metal.large')).toBeUndefined();
  });
});
