import { describe, expect, it } from 'vitest';
import type { Pod } from '../api/kube';
import { initialView, relax } from './preferences';

const term = (family: string) => ({ matchExpressions: [{ key: 'f', operator: 'In' as const, values: [family] }] });

describe('preferences', () => {
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term('a'), term('b')] },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: term('light') },
            { weight: 9, preference: term('heavy') },
          ],
        },
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'z' } }],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'z' } }],
        },
      },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'ScheduleAnyway' }],
    },
  };

  it('relaxes in Karpenter order and ends', () => {
    const steps: string[] = [];
    let v = initialView(pod);
    expect(v.preferredNode[0]?.weight).toBe(9);
    for (let next = relax(v); next; next = relax(v)) {
      steps.push(next.relaxed ?? '');
      v = next;
    }
    expect(steps).toEqual([
      'required node affinity term 1 (trying the next ORed term)',
      'a preferred pod affinity term',
      'a preferred pod anti-affinity term',
      'a preferred node affinity term',
      'a preferred node affinity term',
      'a ScheduleAnyway topology spread constraint',
      'PreferNoSchedule taints (now tolerated)',
    ]);
    expect(v.requiredTerms).toHaveLength(1);
  });

  it('skips the PreferNoSchedule step when no such taint exists', () => {
    const plain: Pod = { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [] } };
    expect(relax(initialView(plain), false)).toBeUndefined();
    expect(relax(initialView(plain), true)?.toleratePreferNoSchedule).toBe(true);
  });
});
