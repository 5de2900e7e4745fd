import { describe, expect, it } from 'vitest';
import { nodePool, pod } from '../../testkit/builders';
import { fixtureInstanceTypes, ZONES } from '../../testkit/instance-types';
import { Domains } from './domains';
import type { PodShape } from './podshape';
import { PodShapes } from './podshape';
import { ResourceIndex } from './resources';
import { NodeClaimTemplate } from './template';
import { Topology } from './topology';
import { VolumeIndex } from './volumes';

const ZONE = 'topology.kubernetes.io/zone';
const CAPACITY = 'karpenter.sh/capacity-type';

function setup() {
  const index = new ResourceIndex();
  const template = new NodeClaimTemplate(
    nodePool({ taints: [{ key: 'team', value: 'a', effect: 'NoSchedule' }] }),
    fixtureInstanceTypes(),
  );
  const shapes = new PodShapes(index, new Topology(new Map(), { of: () => [] }), new VolumeIndex(), []);
  const tolerations = [{ key: 'team', operator: 'Exists' as const }];
  const shapeOf = (o: Parameters<typeof pod>[0]): PodShape => shapes.baseOf(pod(o)).first as PodShape;
  const inB = shapeOf({ nodeSelector: { [ZONE]: 'us-east-1b' }, tolerations });
  const anywhere = shapeOf({ labels: { app: 'other' }, tolerations });
  const untolerating = shapeOf({ labels: { app: 'third' } });
  shapes.finalizeVectors();
  template.buildTypes(index);
  return { domains: new Domains([template], []), inB, anywhere, untolerating };
}

describe('Domains', () => {
  it('answers per shape class, key, node affinity and taints, in any order of asking', () => {
    const { domains, inB, anywhere, untolerating } = setup();
    expect(new Set([inB.classId, anywhere.classId, untolerating.classId]).size).toBe(3);
    // Each question twice, in two orders: a cache that mixed up its slots would answer one with another's domains.
    const questions: [PodShape, string, boolean, boolean, string[]][] = [
      [inB, ZONE, false, false, ZONES],
      [inB, ZONE, true, false, ['us-east-1b']],
      [anywhere, ZONE, true, false, ZONES],
      [untolerating, ZONE, false, false, ZONES],
      [untolerating, ZONE, false, true, []],
      [inB, ZONE, true, true, ['us-east-1b']],
      [inB, CAPACITY, true, false, ['on-demand', 'spot']],
    ];
    for (const order of [questions, [...questions].reverse()]) {
      const fresh = setup();
      const byName = new Map([
        [inB, fresh.inB],
        [anywhere, fresh.anywhere],
        [untolerating, fresh.untolerating],
      ]);
      for (const [shape, key, affinity, taints, want] of [...order, ...order]) {
        expect(fresh.domains.of(byName.get(shape) as PodShape, key, affinity, taints)).toEqual(want);
      }
    }
    expect(domains.of(inB, ZONE, true, false)).toBe(domains.of(inB, ZONE, true, false));
  });
});
