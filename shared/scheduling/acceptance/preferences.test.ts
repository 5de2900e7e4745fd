import { describe, expect, it } from 'vitest';
import { nodePool, pod } from '../../../testkit/builders';
import { claimOf, run, scheduledCount, zoneOf } from '../../../testkit/solve';

const ZONE = 'topology.kubernetes.io/zone';

describe('acceptance: preferences', () => {
  it('honours a satisfiable preferred node affinity as if required', () => {
    const r = run({
      pods: [
        pod({
          cpu: '1',
          affinity: {
            nodeAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 10,
                  preference: {
                    matchExpressions: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['r5'] }],
                  },
                },
              ],
            },
          },
        }),
      ],
    });
    expect(r.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.family === 'r5')).toBe(true);
    expect(r.stats.relaxations).toBe(0);
  });

  it('tries lighter node preferences after the heaviest fails, then drops them', () => {
    const pref = (weight: number, family: string) => ({
      weight,
      preference: {
        matchExpressions: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In' as const, values: [family] }],
      },
    });
    const lighter = run({
      pods: [
        pod({
          cpu: '1',
          affinity: {
            nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [pref(50, 'x1'), pref(10, 'm5')] },
          },
        }),
      ],
    });
    expect(lighter.nodeClaims[0]?.instanceTypeOptions.every((t) => t.info.family === 'm5')).toBe(true);
    const none = run({
      pods: [
        pod({
          cpu: '1',
          affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [pref(50, 'x1')] } },
        }),
      ],
    });
    expect(none.nodeClaims).toHaveLength(1);
    expect(none.stats.relaxations).toBe(1);
  });

  it('relaxes a ScheduleAnyway spread that cannot be met', () => {
    const pods = Array.from({ length: 6 }, (_, i) =>
      pod({
        name: `w-${i}`,
        cpu: '100m',
        labels: { app: 'w' },
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: ZONE,
            whenUnsatisfiable: 'ScheduleAnyway',
            minDomains: 9,
            labelSelector: { matchLabels: { app: 'w' } },
          },
        ],
      }),
    );
    const r = run({ pods });
    expect(scheduledCount(r)).toBe(6);
    expect(r.stats.relaxations).toBeGreaterThan(0);
  });

  it('keeps a satisfiable ScheduleAnyway spread', () => {
    const pods = Array.from({ length: 3 }, (_, i) =>
      pod({
        name: `w-${i}`,
        cpu: '100m',
        labels: { app: 'w' },
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: ZONE,
            whenUnsatisfiable: 'ScheduleAnyway',
            labelSelector: { matchLabels: { app: 'w' } },
          },
        ],
      }),
    );
    const r = run({ pods });
    expect(new Set(r.nodeClaims.map(zoneOf)).size).toBe(3);
  });

  it('relaxes preferred pod anti-affinity when it cannot be met', () => {
    const pods = Array.from({ length: 5 }, (_, i) =>
      pod({
        name: `a-${i}`,
        cpu: '100m',
        labels: { app: 'a' },
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 1, podAffinityTerm: { labelSelector: { matchLabels: { app: 'a' } }, topologyKey: ZONE } },
            ],
          },
        },
      }),
    );
    const r = run({ pods });
    expect(scheduledCount(r)).toBe(5);
    // The first three honour the preference: one per zone.
    expect(new Set(r.nodeClaims.map(zoneOf)).size).toBe(3);
  });

  it('relaxes preferred pod affinity toward pods that do not exist', () => {
    const p = pod({
      name: 'lonely',
      cpu: '100m',
      affinity: {
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 5, podAffinityTerm: { labelSelector: { matchLabels: { app: 'ghost' } }, topologyKey: ZONE } },
          ],
        },
      },
    });
    const r = run({ pods: [p] });
    expect(claimOf(r, 'lonely')).toBeDefined();
    expect(r.stats.relaxations).toBe(1);
  });

  it('avoids PreferNoSchedule taints until nothing else works', () => {
    const soft = nodePool({ name: 'soft', weight: 100, taints: [{ key: 'spotty', effect: 'PreferNoSchedule' }] });
    const plain = nodePool({ name: 'plain', weight: 1 });
    const r = run({ pods: [pod({ cpu: '1' })], nodePools: [soft, plain] });
    expect(r.nodeClaims[0]?.nodePool).toBe('plain');
    const onlySoft = run({ pods: [pod({ cpu: '1' })], nodePools: [soft] });
    expect(onlySoft.nodeClaims[0]?.nodePool).toBe('soft');
  });
});
