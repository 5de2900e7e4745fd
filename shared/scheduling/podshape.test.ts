import { describe, expect, it } from 'vitest';
import { pod } from '../../testkit/builders';
import type { Container, Pod } from '../api/kube';
import { PodShapes } from './podshape';
import { classText, requestsText } from './podtext';
import { ResourceIndex } from './resources';
import { Topology } from './topology';
import { VolumeIndex, type VolumeTopology } from './volumes';

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
    expect(a.first?.identity).toBe(a.identity);
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
    const [sa, sb, so] = [a.first, b.first, other.first];
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
    expect(c.first?.classId).not.toBe(b.first?.classId);
    expect(c.first?.requirements.toString()).toBe(a.first?.requirements.toString());
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

  it('shares every fact but the requests between pods that differ only in their requests, and nothing otherwise', () => {
    const s = shapes();
    const container = (resources: Container['resources'], name = 'app'): Container => ({
      name,
      ports: [{ containerPort: 80, hostPort: 8080 }],
      resources,
    });
    const spec = (c: Container[], more: Partial<Pod['spec']> = {}): Pod =>
      pod({
        labels: { app: 'web' },
        containers: c,
        tolerations: [{ key: 'team', operator: 'Exists' }],
        nodeSelector: { 'kubernetes.io/arch': 'amd64' },
        ...more,
      });
    const a = s.baseOf(spec([container({ requests: { cpu: '100m' } })]));
    const sameClass = [
      spec([container({ requests: { cpu: '101m' } })]),
      spec([container({ requests: { cpu: '100m' }, limits: { memory: '1Gi' } })]),
      spec([container(undefined)]),
      spec([container({ requests: { cpu: '100m' } })], { overhead: { cpu: '10m' } }),
    ].map((p) => s.baseOf(p));
    for (const b of sameClass) {
      expect(b).not.toBe(a);
      expect(b.template).toBe(a);
      expect(b.views).toBe(a.views);
      expect(b.hostPorts).toBe(a.hostPorts);
      expect(b.first?.classId).toBe(a.first?.classId);
      expect(b.first?.requirements).toBe(a.first?.requirements);
      expect(b.first?.tolerations).toBe(a.first?.tolerations);
    }
    expect(new Set(sameClass.map((b) => b.baseId)).size).toBe(sameClass.length);
    const otherClass = [
      spec([container({ requests: { cpu: '100m' } }, 'sidecar')]),
      spec([{ ...container({ requests: { cpu: '100m' } }), ports: [{ containerPort: 80, hostPort: 9090 }] }]),
      spec([container({ requests: { cpu: '100m' } }), container({ requests: { cpu: '100m' } }, 'b')]),
      spec([container({ requests: { cpu: '100m' } })], { tolerations: [] }),
      spec([container({ requests: { cpu: '100m' } })], { nodeSelector: { resources: 'x' } }),
      spec([container({ requests: { cpu: '100m' } })], {
        initContainers: [{ name: 'init', resources: { requests: { cpu: '100m' } } }],
      }),
    ].map((p) => s.baseOf(p));
    for (const b of otherClass) {
      expect(b.template).toBeUndefined();
      expect(b.views).not.toBe(a.views);
      expect(b.first?.classId).not.toBe(a.first?.classId);
    }
    // Replicas of each come back to their base.
    expect(s.baseOf(spec([container({ requests: { cpu: '101m' } })]))).toBe(sameClass[0]);
    expect(s.baseOf(spec([container({ requests: { cpu: '100m' } })], { overhead: { cpu: '10m' } }))).toBe(sameClass[3]);
    expect(s.baseOf(spec([container({ requests: { cpu: '100m' } })]))).toBe(a);
  });

  it('reads a pod as a class text and a requests text that together tell any two specs apart', () => {
    const none: VolumeTopology = { requirements: undefined as never, warnings: [], key: '' };
    const c = (name: string, requests: Record<string, string>, more: Partial<Container> = {}): Container => ({
      name,
      resources: { requests },
      ...more,
    });
    const specs: Pod['spec'][] = [
      { containers: [c('a', { cpu: '1' })] },
      { containers: [c('a', { cpu: '2' })] },
      { containers: [c('b', { cpu: '1' })] },
      { containers: [c('a', { cpu: '1' }), c('a', { cpu: '1' })] },
      { containers: [c('a', { cpu: '1' }, { restartPolicy: 'Always' })] },
      { containers: [c('a', { cpu: '1' })], overhead: { cpu: '1' } },
      { containers: [c('a', { cpu: '1' })], initContainers: [c('a', { cpu: '1' })] },
      { containers: [c('a', { cpu: '1' })], initContainers: [c('a', { cpu: '2' })] },
      { containers: [c('a', { cpu: '1' })], nodeSelector: { resources: '{"cpu":"1"}' } },
      { containers: [c('a', { cpu: '1' })], priority: 1 },
      { containers: [{ name: 'a' }] },
      { containers: [] },
      {} as Pod['spec'],
    ];
    const texts = specs.map((spec) => `${classText(spec, none)}\n${requestsText(spec)}`);
    expect(new Set(texts).size).toBe(specs.length);
    // Equal specs give equal texts; the node name and the volumes are not read (the volume topology stands for them).
    expect(classText({ ...specs[6], nodeName: 'n1', volumes: [] } as Pod['spec'], none)).toBe(
      classText(specs[6] as Pod['spec'], none),
    );
    // Specs that differ only in resources or overhead share the class text.
    const classes = new Set([0, 1, 5].map((i) => classText(specs[i] as Pod['spec'], none)));
    expect(classes.size).toBe(1);
    // The volume topology is part of the class.
    const vol = { ...none, key: 'zone in (a)' };
    expect(classText(specs[0] as Pod['spec'], vol)).not.toBe(classText(specs[0] as Pod['spec'], none));
    expect(classText(specs[0] as Pod['spec'], { ...none, missing: 'pvc x' })).not.toBe(
      classText(specs[0] as Pod['spec'], none),
    );
  });

  it('reads the same requests once per class under other labels, and an unreadable request under any', () => {
    const s = shapes();
    const web = s.baseOf(pod({ labels: { app: 'web' }, cpu: '250m' }));
    const db = s.baseOf(pod({ labels: { app: 'db' }, cpu: '250m' }));
    expect(db).not.toBe(web);
    expect(db.identity).not.toBe(web.identity);
    expect(db.requestList).toEqual({ cpu: 250, pods: 1 });
    const bad = s.baseOf(pod({ labels: { app: 'web' }, cpu: 'lots' }));
    const badToo = s.baseOf(pod({ labels: { app: 'db' }, cpu: 'lots' }));
    expect(bad.invalid).toMatch(/invalid resources/);
    expect(badToo.invalid).toMatch(/invalid resources/);
    // A later valid pod of the class still derives from its identity's template.
    expect(s.baseOf(pod({ labels: { app: 'db' }, cpu: '300m' })).template).toBe(db);
  });
});
