import { describe, expect, it } from 'vitest';
import { parseResourceList } from '../shared/api/resources';
import {
  benchmarkPods,
  CPU_CHOICES,
  KARPENTER_AFFINITY_KEY,
  KARPENTER_CPU_MILLIS,
  KARPENTER_GROUPS,
  KARPENTER_LABEL_VALUES,
  KARPENTER_MEMORY_MIB,
  KARPENTER_SIX_GROUPS,
  karpenterDiversePods,
  MEMORY_CHOICES,
} from './workloads';

describe('benchmarkPods', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(benchmarkPods(50, 7)).toEqual(benchmarkPods(50, 7));
    expect(benchmarkPods(50, 7)).not.toEqual(benchmarkPods(50, 8));
  });

  it('splits the mix into fifths with the right constraints', () => {
    const pods = benchmarkPods(1000, 1);
    expect(pods).toHaveLength(1000);
    const byShape = new Map<string, number>();
    for (const p of pods) {
      const shape = p.metadata.name.replace(/-\d+$/, '');
      byShape.set(shape, (byShape.get(shape) ?? 0) + 1);
    }
    expect(Object.fromEntries(byShape)).toEqual({
      generic: 200,
      'zone-spread': 200,
      'hostname-spread': 200,
      'zone-affinity': 200,
      'hostname-anti-affinity': 200,
    });
    const one = (shape: string) => pods.find((p) => p.metadata.name === `${shape}-0`)!;
    expect(one('generic').spec.affinity).toBeUndefined();
    expect(one('generic').spec.topologySpreadConstraints).toBeUndefined();
    expect(one('zone-spread').spec.topologySpreadConstraints?.[0]).toMatchObject({
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'DoNotSchedule',
    });
    expect(one('hostname-spread').spec.topologySpreadConstraints?.[0]?.topologyKey).toBe('kubernetes.io/hostname');
    const affinity = one('zone-affinity');
    const term = affinity.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
    expect(term?.topologyKey).toBe('topology.kubernetes.io/zone');
    // Self-affinity: the selector matches the pod's own labels.
    expect(term?.labelSelector?.matchLabels).toEqual(affinity.metadata.labels);
    const anti = one('hostname-anti-affinity');
    const antiTerm = anti.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
    expect(antiTerm).toMatchObject({
      topologyKey: 'kubernetes.io/hostname',
      labelSelector: { matchLabels: anti.metadata.labels },
    });
  });

  it('draws requests only from the benchmark choices, and uses all of them', () => {
    const pods = benchmarkPods(2000, 3);
    const cpus = new Set<string>();
    const mems = new Set<string>();
    for (const p of pods) {
      const requests = p.spec.containers[0]?.resources?.requests ?? {};
      cpus.add(String(requests.cpu));
      mems.add(String(requests.memory));
      expect(parseResourceList(requests).cpu).toBeGreaterThan(0);
    }
    expect([...cpus].sort()).toEqual([...CPU_CHOICES].sort());
    expect([...mems].sort()).toEqual([...MEMORY_CHOICES].sort());
  });

  it('spreads a remainder over the first shapes and honours a shape list', () => {
    expect(benchmarkPods(7, 1).map((p) => p.metadata.name.replace(/-\d+$/, ''))).toEqual([
      'generic',
      'generic',
      'zone-spread',
      'zone-spread',
      'hostname-spread',
      'zone-affinity',
      'hostname-anti-affinity',
    ]);
    expect(benchmarkPods(10, 1, ['generic']).every((p) => p.metadata.name.startsWith('generic-'))).toBe(true);
  });
});

describe('karpenterDiversePods (Karpenter’s makeDiversePods)', () => {
  const groupOf = (p: { metadata: { name: string } }) => p.metadata.name.replace(/-\d+$/, '');
  const countBy = (pods: { metadata: { name: string } }[]) => {
    const out: Record<string, number> = {};
    for (const p of pods) out[groupOf(p)] = (out[groupOf(p)] ?? 0) + 1;
    return out;
  };

  it('makes five equal groups in Karpenter’s order, the remainder as generic pods at the end', () => {
    const pods = karpenterDiversePods(5003, 42);
    expect(pods).toHaveLength(5003);
    expect(countBy(pods)).toEqual({
      generic: 1003,
      'zone-spread': 1000,
      'hostname-spread': 1000,
      'zone-affinity': 1000,
      'hostname-anti-affinity': 1000,
    });
    expect(pods.slice(0, 1000).every((p) => groupOf(p) === 'generic')).toBe(true);
    expect(pods.slice(-3).map((p) => p.metadata.name)).toEqual(['generic-1000', 'generic-1001', 'generic-1002']);
    expect([...new Set(pods.map(groupOf))]).toEqual([...KARPENTER_GROUPS]);
  });

  it('makes six equal groups with hostname self-affinity when asked for the six-group mix', () => {
    const pods = karpenterDiversePods(6000, 42, KARPENTER_SIX_GROUPS);
    expect(Object.values(countBy(pods))).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
    const host = pods.find((p) => p.metadata.name === 'hostname-affinity-0')!;
    const term = host.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
    expect(term?.topologyKey).toBe('kubernetes.io/hostname');
    expect(term?.labelSelector?.matchLabels).toEqual({
      [KARPENTER_AFFINITY_KEY]: host.metadata.labels?.[KARPENTER_AFFINITY_KEY],
    });
  });

  it('labels every anti-affinity pod app: nginx and selects app: nginx', () => {
    const anti = karpenterDiversePods(1000, 3).filter((p) => groupOf(p) === 'hostname-anti-affinity');
    expect(anti).toHaveLength(200);
    for (const p of anti) {
      expect(p.metadata.labels).toMatchObject({ app: 'nginx' });
      const term = p.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
      expect(term).toEqual({ labelSelector: { matchLabels: { app: 'nginx' } }, topologyKey: 'kubernetes.io/hostname' });
    }
  });

  it('draws labels from a–g, with spread selectors drawn apart from the pod’s own label', () => {
    const pods = karpenterDiversePods(5000, 42);
    const spread = pods.filter((p) => groupOf(p).endsWith('-spread'));
    const own = spread.map((p) => p.metadata.labels?.['my-label']);
    const selected = spread.map((p) => p.spec.topologySpreadConstraints?.[0]?.labelSelector?.matchLabels?.['my-label']);
    expect(new Set(own)).toEqual(new Set(KARPENTER_LABEL_VALUES));
    expect(new Set(selected)).toEqual(new Set(KARPENTER_LABEL_VALUES));
    // Independent draws: about 1 in 7 match; tied to the label, all would.
    const same = own.filter((v, i) => v === selected[i]).length / spread.length;
    expect(same).toBeGreaterThan(0.1);
    expect(same).toBeLessThan(0.2);
    for (const p of spread) {
      expect(p.spec.topologySpreadConstraints?.[0]).toMatchObject({ maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' });
    }
    const generic = pods.filter((p) => groupOf(p) === 'generic');
    expect(new Set(generic.map((p) => p.metadata.labels?.['my-label']))).toEqual(new Set(KARPENTER_LABEL_VALUES));
    expect(generic.every((p) => !p.spec.affinity && !p.spec.topologySpreadConstraints)).toBe(true);
  });

  it('gives zone-affinity pods self-affinity under Karpenter’s spelling of the key', () => {
    const zone = karpenterDiversePods(1000, 5).filter((p) => groupOf(p) === 'zone-affinity');
    expect(new Set(zone.map((p) => p.metadata.labels?.['my-affininity']))).toEqual(new Set(KARPENTER_LABEL_VALUES));
    for (const p of zone) {
      const term = p.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0];
      expect(term).toEqual({
        labelSelector: { matchLabels: { 'my-affininity': p.metadata.labels?.['my-affininity'] } },
        topologyKey: 'topology.kubernetes.io/zone',
      });
    }
  });

  it('requests cpu and memory from Karpenter’s lists, spelled as it spells them, and all of them', () => {
    const pods = karpenterDiversePods(3000, 9);
    const cpus = new Set<string>();
    const mems = new Set<string>();
    for (const p of pods) {
      const requests = p.spec.containers[0]?.resources?.requests ?? {};
      cpus.add(String(requests.cpu));
      mems.add(String(requests.memory));
    }
    expect([...cpus].sort()).toEqual(KARPENTER_CPU_MILLIS.map((m) => `${m}m`).sort());
    expect([...mems].sort()).toEqual(KARPENTER_MEMORY_MIB.map((m) => `${m}Mi`).sort());
    expect(KARPENTER_CPU_MILLIS).toEqual([100, 250, 500, 1000, 1500]);
    expect(KARPENTER_MEMORY_MIB).toEqual([100, 256, 512, 1024, 2048, 4096]);
  });

  it('is the same for the same seed and differs for another', () => {
    expect(karpenterDiversePods(100, 1)).toEqual(karpenterDiversePods(100, 1));
    expect(karpenterDiversePods(100, 1)).not.toEqual(karpenterDiversePods(100, 2));
  });
});
