import { describe, expect, it } from 'vitest';
import { pod } from '../../testkit/builders';
import { PodShapes } from './podshape';
import { ResourceIndex } from './resources';
import { Topology } from './topology';
import { VolumeIndex } from './volumes';

function shapes(): PodShapes {
  return new PodShapes(new ResourceIndex(), new Topology(new Map(), { of: () => [] }), new VolumeIndex(), []);
}

describe('PodShapes', () => {
  it('gives pods one base per spec and one identity per namespace and labels', () => {
    const s = shapes();
    const a = s.baseOf(pod({ labels: { app: 'web' }, cpu: '100m' }));
    const b = s.baseOf(pod({ labels: { app: 'web' }, cpu: '200m' }));
    const c = s.baseOf(pod({ labels: { app: 'web' }, cpu: '100m' }));
    const d = s.baseOf(pod({ labels: { app: 'db' }, cpu: '100m' }));
    const e = s.baseOf(pod({ namespace: 'other', labels: { app: 'web' }, cpu: '100m' }));
    expect(c).toBe(a);
    expect(b).not.toBe(a);
    expect(b.identity).toBe(a.identity);
    expect(new Set([a.identity, d.identity, e.identity]).size).toBe(3);
    expect(a.levels[0]?.identity).toBe(a.identity);
  });
});
