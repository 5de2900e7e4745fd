// A sweep's replacement solves follow Karpenter's scheduling operator settings as provisioning does
// (docs/disruption.md, Settings): MinValuesPolicy and PreferencePolicy reach every solve the sweep makes.
import { describe, expect, it } from 'vitest';
import { pod } from '../../testkit/builders';
import { disruptionInput, node, pool } from '../../testkit/disruption';
import { Sweep } from './sweep';
import type { DisruptionOptions } from './types';

const sweepWith = (options: DisruptionOptions = {}) =>
  new Sweep(disruptionInput([node('n0', { cpus: ['1'] })], { options }));

describe('Sweep replacement solves', () => {
  it('ignore topology spread preferences when the PreferencePolicy is Ignore', () => {
    const labels = { app: 'spread' };
    const spread = () =>
      pod({
        labels,
        cpu: '100m',
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'kubernetes.io/hostname',
            whenUnsatisfiable: 'ScheduleAnyway',
            labelSelector: { matchLabels: labels },
          },
        ],
      });
    const pods = [spread(), spread(), spread()];
    expect(sweepWith().solveNew(pods, 's').nodeClaims).toHaveLength(3);
    expect(sweepWith({ preferencePolicy: 'Ignore' }).solveNew(pods, 's').nodeClaims).toHaveLength(1);
  });

  it('relax minValues that the pool cannot meet when the MinValuesPolicy is BestEffort', () => {
    const p = pool();
    const strict = pool();
    strict.spec.template.spec.requirements = [
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5.xlarge'], minValues: 3 },
    ];
    const input = (options: DisruptionOptions) =>
      disruptionInput([node('n0', { pool: p, cpus: ['1'] })], { nodePools: [strict], options });
    const pods = [pod({ cpu: '1' })];
    expect(new Sweep(input({})).solveNew(pods, 's').nodeClaims).toHaveLength(0);
    expect(new Sweep(input({ minValuesPolicy: 'BestEffort' })).solveNew(pods, 's').nodeClaims).toHaveLength(1);
  });
});
