import { describe, expect, it } from 'vitest';
import { firstUntolerated, formatTaint, tolerates, toleratesHardTaints } from './taints';

const gpu = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };

describe('taints', () => {
  it('matches key, value and effect', () => {
    expect(tolerates({ key: 'nvidia.com/gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }, gpu)).toBe(
      true,
    );
    expect(tolerates({ key: 'nvidia.com/gpu', value: 'false' }, gpu)).toBe(false);
    expect(tolerates({ key: 'nvidia.com/gpu', operator: 'Exists' }, gpu)).toBe(true);
    expect(tolerates({ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute' }, gpu)).toBe(false);
    expect(tolerates({ operator: 'Exists' }, gpu)).toBe(true);
    expect(tolerates({ key: 'other', operator: 'Exists' }, gpu)).toBe(false);
  });

  it('finds the first untolerated taint', () => {
    const t2 = { key: 'dedicated', value: 'db', effect: 'NoExecute' as const };
    expect(firstUntolerated([gpu, t2], [{ key: 'nvidia.com/gpu', operator: 'Exists' }])).toEqual(t2);
    expect(firstUntolerated([gpu], [])).toEqual(gpu);
    expect(firstUntolerated([], [])).toBeUndefined();
    expect(formatTaint(gpu)).toBe('nvidia.com/gpu=true:NoSchedule');
  });

  it('judges only NoSchedule and NoExecute taints for nodeTaintsPolicy', () => {
    const soft = { key: 'spot', effect: 'PreferNoSchedule' as const };
    expect(toleratesHardTaints([soft], [])).toBe(true);
    expect(toleratesHardTaints([gpu, soft], [])).toBe(false);
    expect(toleratesHardTaints([gpu, soft], [{ key: 'nvidia.com/gpu', operator: 'Exists' }])).toBe(true);
    expect(toleratesHardTaints([{ key: 'dedicated', effect: 'NoExecute' }], [])).toBe(false);
  });
});
