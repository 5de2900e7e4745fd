import { describe, expect, it } from 'vitest';
import { recordHistory } from './history';
import { planDisruption } from './plan';
import { disruptionInput, HOUR, node, pool, T0 } from './testing';

describe('recordHistory', () => {
  it('appends each command per NodePool and forgets entries older than the window', () => {
    const p = pool();
    const plan = planDisruption(
      disruptionInput([node('a', { pool: p, type: 'm5.4xlarge', cpus: ['1500m', '1500m'] })], { nodePools: [p] }),
    );
    const before = { default: [{ at: T0 - 30 * HOUR, reason: 'Empty' as const, removed: 1, launched: 0 }] };
    expect(recordHistory(before, plan)).toEqual({
      default: [{ at: T0, reason: 'Underutilized', removed: 1, launched: 1 }],
    });
  });
});
