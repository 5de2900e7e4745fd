import { describe, expect, it } from 'vitest';
import { parseResourceList } from '../shared/api/resources';
import { benchmarkPods, CPU_CHOICES, MEMORY_CHOICES } from './workloads';

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
