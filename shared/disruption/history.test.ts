import { describe, expect, it } from 'vitest';
import { disruptionInput, HOUR, node, pool, T0 } from '../../testkit/disruption';
import { recordHistory } from './history';
import { planDisruption } from './plan';

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

  it('records a 3-into-1 merge as one command: removed 3, launched 1', () => {
    const p = pool();
    // 2 cpu each: no node can take another's pod, so only a merge helps.
    const nodes = ['a', 'b', 'c'].map((n) => node(n, { pool: p, type: 'm5.xlarge', cpus: ['2'] }));
    const plan = planDisruption(disruptionInput(nodes, { nodePools: [p] }));
    expect(recordHistory({}, plan)).toEqual({
      default: [{ at: T0, reason: 'Underutilized', removed: 3, launched: 1 }],
    });
  });
});
