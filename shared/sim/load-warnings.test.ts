import { describe, expect, it } from 'vitest';
import { pod } from '../../testkit/builders';
import { requestlessPods } from './load-warnings';

describe('requestlessPods', () => {
  const named = (cpu: string | undefined, memory: string | undefined) =>
    pod({ name: `cpu-${cpu}-mem-${memory}`, requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } });

  it('counts a pod whose CPU and memory add up to zero, however the quantities are written', () => {
    const zero = [named(undefined, undefined), named('0', '0'), named('0m', '0Mi'), named('1e-4', undefined)];
    // 1e-4 cores and 100 micro-cores round to no millicore at all.
    zero.push(named('100u', undefined), named('0.0001', undefined));
    expect(requestlessPods(zero).map((p) => p.metadata.name)).toEqual(zero.map((p) => p.metadata.name));
  });

  it('does not count a pod that requests CPU or memory', () => {
    const some = [named('1', undefined), named('250m', undefined), named('1.5', undefined), named(undefined, '1')];
    some.push(named(undefined, '512Mi'), named(undefined, '1m'), named('0.001', undefined), named('2e3', undefined));
    expect(requestlessPods(some)).toEqual([]);
  });

  it('adds up limits, init containers and overhead, as the solver does', () => {
    const byLimit = pod({ containers: [{ name: 'app', resources: { limits: { cpu: '1' } } }] });
    const byInit = pod({
      requests: {},
      initContainers: [{ name: 'init', resources: { requests: { memory: '1Gi' } } }],
    });
    const byOverhead = pod({ requests: {}, overhead: { cpu: '10m' } });
    expect(requestlessPods([byLimit, byInit, byOverhead])).toEqual([]);
  });
});
