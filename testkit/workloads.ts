// Workloads for tests and the timing script: Karpenter's benchmark mix (pods drawn with a fixed seed) and plain
// unconstrained mixes for cost checks.
import type { Pod, PodSpec } from '../shared/api/kube';
import { createRng } from '../shared/sim/rng';

const CPU = [100, 250, 500, 1000, 1500];
const MEMORY = [100, 256, 512, 1024, 2048, 4096];
const LABEL_VALUES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

/** A seeded uniform generator in [0, 1) (shared/sim's mulberry32), so every run draws the same pods. */
export function rng(seed: number): () => number {
  return createRng(seed).next;
}

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)] as T;
}

function mkPod(name: string, r: () => number, labels: Record<string, string>, extra: Partial<PodSpec> = {}): Pod {
  return {
    metadata: { name, namespace: 'default', labels },
    spec: {
      containers: [
        { name: 'app', resources: { requests: { cpu: `${pick(r, CPU)}m`, memory: `${pick(r, MEMORY)}Mi` } } },
      ],
      ...extra,
    },
  };
}

/** Unconstrained pods with cpu from {100…1500}m and memory from {100…4096}Mi. */
export function mixedPods(count: number, seed = 1): Pod[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, i) => mkPod(`mixed-${i}`, r, { 'my-label': pick(r, LABEL_VALUES) }));
}

export type BenchKind = 'generic' | 'zoneSpread' | 'hostnameSpread' | 'zoneAffinity' | 'hostnameAntiAffinity';

/**
 * Karpenter's scheduling-benchmark mix, one fifth each: no constraints, zone spread, hostname spread, zone
 * self-affinity and hostname anti-affinity (labels drawn from a..g like Karpenter's benchmark).
 */
export function benchmarkPods(count: number, seed = 42): Pod[] {
  const r = rng(seed);
  const kinds: BenchKind[] = ['generic', 'zoneSpread', 'hostnameSpread', 'zoneAffinity', 'hostnameAntiAffinity'];
  const per = Math.floor(count / kinds.length);
  const out: Pod[] = [];
  kinds.forEach((kind, k) => {
    const n = k === kinds.length - 1 ? count - per * (kinds.length - 1) : per;
    for (let i = 0; i < n; i++) out.push(benchPod(kind, `${kind}-${i}`, r));
  });
  return out;
}

function benchPod(kind: BenchKind, name: string, r: () => number): Pod {
  switch (kind) {
    case 'generic':
      return mkPod(name, r, { 'my-label': pick(r, LABEL_VALUES) });
    case 'zoneSpread':
    case 'hostnameSpread': {
      const key = kind === 'zoneSpread' ? 'topology.kubernetes.io/zone' : 'kubernetes.io/hostname';
      return mkPod(
        name,
        r,
        { 'my-label': pick(r, LABEL_VALUES) },
        {
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: key,
              whenUnsatisfiable: 'DoNotSchedule',
              labelSelector: { matchLabels: { 'my-label': pick(r, LABEL_VALUES) } },
            },
          ],
        },
      );
    }
    case 'zoneAffinity': {
      const labels = { 'my-affinity': pick(r, LABEL_VALUES) };
      return mkPod(name, r, labels, {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: labels }, topologyKey: 'topology.kubernetes.io/zone' },
            ],
          },
        },
      });
    }
    case 'hostnameAntiAffinity': {
      const labels = { app: 'nginx' };
      return mkPod(name, r, labels, {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
      });
    }
  }
}

export interface DistinctMix {
  /** Share of pods with a zone topology spread (maxSkew 1, DoNotSchedule). */
  zoneSpread?: number;
  /** Share of pods with required hostname anti-affinity (`app: nginx` against each other). */
  antiAffinity?: number;
  seed?: number;
  /** Round requests to this many cpu and memory steps each (0: every request is its own). */
  shapes?: number;
}

/**
 * Pods whose requests are all different, the way VPA-sized and per-team pods are: cpu 50–2000m and memory
 * 64–4096Mi drawn uniformly at 1m and 1Mi grain. With `shapes` set, the same draws are rounded to that many steps
 * per resource, which gives the same workload in a handful of shapes for comparison.
 */
export function distinctPods(count: number, mix: DistinctMix = {}): Pod[] {
  const r = rng(mix.seed ?? 7);
  const round = (v: number, lo: number, hi: number): number => {
    if (!mix.shapes) return Math.round(v);
    const step = (hi - lo) / (mix.shapes - 1);
    return Math.round(lo + Math.round((v - lo) / step) * step);
  };
  return Array.from({ length: count }, (_, i) => {
    const cpu = round(50 + r() * 1950, 50, 2000);
    const mem = round(64 + r() * 4032, 64, 4096);
    const draw = r();
    const requests = { cpu: `${cpu}m`, memory: `${mem}Mi` };
    const containers = [{ name: 'app', resources: { requests } }];
    const antiShare = mix.antiAffinity ?? 0;
    const spreadShare = mix.zoneSpread ?? 0;
    if (draw < antiShare) {
      const labels = { app: 'nginx' };
      return {
        metadata: { name: `distinct-${i}`, namespace: 'default', labels },
        spec: {
          containers,
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' },
              ],
            },
          },
        },
      };
    }
    if (draw < antiShare + spreadShare) {
      const labels = { app: 'spread' };
      return {
        metadata: { name: `distinct-${i}`, namespace: 'default', labels },
        spec: {
          containers,
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'DoNotSchedule',
              labelSelector: { matchLabels: labels },
            },
          ],
        },
      };
    }
    return {
      metadata: { name: `distinct-${i}`, namespace: 'default', labels: { app: 'plain' } },
      spec: { containers },
    };
  });
}
