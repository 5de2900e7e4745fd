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

  it('derives the shapes of pods that differ only in their requests from the first such pod, sharing its class', () => {
    const s = shapes();
    const spread = {
      labels: { app: 'web' },
      nodeSelector: { 'kubernetes.io/arch': 'amd64' },
      tolerations: [{ key: 'team', operator: 'Exists' as const }],
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 1, preference: { matchExpressions: [{ key: 'team', operator: 'In' as const, values: ['a'] }] } },
          ],
        },
      },
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'DoNotSchedule' as const,
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ],
    };
    const a = s.baseOf(pod({ ...spread, cpu: '100m', memory: '128Mi' }));
    const b = s.baseOf(pod({ ...spread, cpu: '250m', memory: '300Mi' }));
    const other = s.baseOf(pod({ ...spread, nodeSelector: { 'kubernetes.io/arch': 'arm64' }, cpu: '250m' }));
    const [sa, sb, so] = [a.levels[0], b.levels[0], other.levels[0]];
    expect(b).not.toBe(a);
    expect(b.template).toBe(a);
    expect(sb?.classId).toBe(sa?.classId);
    expect(sb?.id).not.toBe(sa?.id);
    expect(sb?.base).toBe(b);
    expect(sb?.baseId).toBe(b.baseId);
    expect(b.requestList).toEqual({ cpu: 250, memory: 300 * 2 ** 20, pods: 1 });
    // Everything but the requests is the template's: the same groups, requirements and tolerations.
    expect(sb?.groups).toEqual(sa?.groups);
    expect(sb?.requirements.toString()).toBe(sa?.requirements.toString());
    expect(sb?.tolerations).toEqual(sa?.tolerations);
    expect(so?.classId).not.toBe(sa?.classId);
    expect(other.template).toBeUndefined();
    // Relaxed levels derive from the template's too, and stay in one class per level.
    s.finalizeVectors();
    expect(Array.from(sb?.requests ?? [])).toEqual([250, 300 * 2 ** 20, 1]);
    const [ra, rb] = [s.level(a, 1), s.level(b, 1)];
    expect(ra).toBeDefined();
    expect(rb?.classId).toBe(ra?.classId);
    expect(rb?.classId).not.toBe(sa?.classId);
    expect(rb?.requirements.has('team')).toBe(false);
    expect(s.relaxation(b, 1)).toBe(s.relaxation(a, 1));
  });

  it('finds each base again by spec and identity when specs that differ only in requests share their facts', () => {
    const s = shapes();
    const spec = { nodeSelector: { 'kubernetes.io/arch': 'amd64' }, memory: '128Mi' };
    const a = s.baseOf(pod({ ...spec, labels: { app: 'web' }, cpu: '100m' }));
    const b = s.baseOf(pod({ ...spec, labels: { app: 'web' }, cpu: '250m' }));
    // The same spec as b under other labels: a base of its own, the first of its identity, so not derived.
    const c = s.baseOf(pod({ ...spec, labels: { app: 'db' }, cpu: '250m' }));
    const e = s.baseOf(pod({ ...spec, labels: { app: 'db' }, cpu: '300m' }));
    expect(b.template).toBe(a);
    expect(c.template).toBeUndefined();
    expect(c.identity).not.toBe(b.identity);
    expect(c.levels[0]?.classId).not.toBe(b.levels[0]?.classId);
    expect(c.levels[0]?.requirements.toString()).toBe(a.levels[0]?.requirements.toString());
    expect(e.template).toBe(c);
    // Replicas of each come back to the same base.
    expect(s.baseOf(pod({ ...spec, labels: { app: 'web' }, cpu: '250m' }))).toBe(b);
    expect(s.baseOf(pod({ ...spec, labels: { app: 'db' }, cpu: '250m' }))).toBe(c);
    expect(s.baseOf(pod({ ...spec, labels: { app: 'db' }, cpu: '300m' }))).toBe(e);
    expect(s.all).toEqual([a, b, c, e]);
  });

  it('builds a pod whose requests cannot be read in full, to say why', () => {
    const s = shapes();
    s.baseOf(pod({ labels: { app: 'web' }, cpu: '100m' }));
    const bad = s.baseOf(pod({ labels: { app: 'web' }, cpu: 'lots' }));
    expect(bad.invalid).toMatch(/invalid resources/);
    expect(bad.template).toBeUndefined();
  });
});
