// Workloads for tests and the benchmark: Karpenter's benchmark mix (pods drawn with a fixed seed), plain
// unconstrained mixes for cost checks, and pods whose requests all differ.
import type { Pod, PodSpec } from '../shared/api/kube';
import { LabelHostname, LabelZone } from '../shared/api/labels';
import { createRng, type Rng } from '../shared/sim/rng';
import { pod } from './builders';

const CPU = [100, 250, 500, 1000, 1500];
const MEMORY = [100, 256, 512, 1024, 2048, 4096];
/** Karpenter's benchmark requests: cpu in millicores, memory in MiB. */
export const KARPENTER_CPU_MILLIS: readonly number[] = CPU;
export const KARPENTER_MEMORY_MIB: readonly number[] = MEMORY;
const LABEL_VALUES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'] as const;

/** A seeded uniform generator in [0, 1) (shared/sim's mulberry32), so every run draws the same pods. */
export function rng(seed: number): () => number {
  return createRng(seed).next;
}

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)] as T;
}

function mkPod(name: string, r: () => number, labels: Record<string, string>, extra: Partial<PodSpec> = {}): Pod {
  return pod({ name, labels, cpu: `${pick(r, CPU)}m`, memory: `${pick(r, MEMORY)}Mi`, ...extra });
}

/** Unconstrained pods with cpu from {100…1500}m and memory from {100…4096}Mi. */
export function mixedPods(count: number, seed = 1): Pod[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, i) => mkPod(`mixed-${i}`, r, { 'my-label': pick(r, LABEL_VALUES) }));
}

export const CPU_CHOICES = ['100m', '250m', '500m', '1', '1500m'] as const;
export const MEMORY_CHOICES = ['100Mi', '256Mi', '512Mi', '1Gi', '2Gi', '4Gi'] as const;
export type PodShape = 'generic' | 'zone-spread' | 'hostname-spread' | 'zone-affinity' | 'hostname-anti-affinity';
export const MIXED_SHAPES: readonly PodShape[] = [
  'generic',
  'zone-spread',
  'hostname-spread',
  'zone-affinity',
  'hostname-anti-affinity',
];

function basePod(rng: Rng, name: string, labels: Record<string, string>): Pod {
  return pod({
    typed: true,
    name,
    namespace: 'bench',
    uid: `${name}-uid`,
    labels,
    cpu: rng.pick(CPU_CHOICES),
    memory: rng.pick(MEMORY_CHOICES),
  });
}

function benchPod(rng: Rng, shape: PodShape, name: string): Pod {
  switch (shape) {
    case 'generic':
      return basePod(rng, name, { 'my-label': rng.pick(LABEL_VALUES) });
    case 'zone-spread':
    case 'hostname-spread': {
      const pod = basePod(rng, name, { 'my-label': rng.pick(LABEL_VALUES) });
      pod.spec.topologySpreadConstraints = [
        {
          maxSkew: 1,
          topologyKey: shape === 'zone-spread' ? LabelZone : LabelHostname,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { 'my-label': rng.pick(LABEL_VALUES) } },
        },
      ];
      return pod;
    }
    case 'zone-affinity': {
      const labels = { 'my-affinity': rng.pick(LABEL_VALUES) };
      const pod = basePod(rng, name, labels);
      pod.spec.affinity = {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: labels }, topologyKey: LabelZone },
          ],
        },
      };
      return pod;
    }
    case 'hostname-anti-affinity': {
      const labels = { 'my-anti-affinity': rng.pick(LABEL_VALUES) };
      const pod = basePod(rng, name, labels);
      pod.spec.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: labels }, topologyKey: LabelHostname },
          ],
        },
      };
      return pod;
    }
  }
}

/**
 * Karpenter's scheduling-benchmark mix (what `npm run bench` plans): `count` pods split evenly over `shapes` (in blocks, as Karpenter builds them), named
 * `<shape>-<i>`. Labels come from a small alphabet, so many pods share a selector, as in Karpenter's benchmark.
 */
export function benchmarkPods(count: number, seed: number, shapes: readonly PodShape[] = MIXED_SHAPES): Pod[] {
  const rng = createRng(seed);
  const pods: Pod[] = [];
  shapes.forEach((shape, s) => {
    const n = Math.floor(count / shapes.length) + (s < count % shapes.length ? 1 : 0);
    for (let i = 0; i < n; i++) pods.push(benchPod(rng, shape, `${shape}-${i}`));
  });
  return pods;
}

/**
 * The groups of Karpenter's scheduling benchmark (`makeDiversePods` in kubernetes-sigs/karpenter's
 * `scheduling_benchmark_test.go`), in the order it appends them. Since January 2025 it has these five.
 */
export type KarpenterGroup =
  | 'generic'
  | 'zone-spread'
  | 'hostname-spread'
  | 'hostname-affinity'
  | 'zone-affinity'
  | 'hostname-anti-affinity';
export const KARPENTER_GROUPS: readonly KarpenterGroup[] = [
  'generic',
  'zone-spread',
  'hostname-spread',
  'zone-affinity',
  'hostname-anti-affinity',
];
/**
 * The six groups issue 14 names: Karpenter's five plus hostname self-affinity, the group its benchmark had from
 * January 2024 until January 2025 (then with a selector drawn apart from the pod's label, which left pods
 * unschedulable; here it is self-affinity, as Karpenter's zone affinity is now).
 */
export const KARPENTER_SIX_GROUPS: readonly KarpenterGroup[] = [
  'generic',
  'zone-spread',
  'hostname-spread',
  'hostname-affinity',
  'zone-affinity',
  'hostname-anti-affinity',
];

/** Karpenter's benchmark draws label values from these seven, and every pod of its anti-affinity group is `app: nginx`. */
export const KARPENTER_LABEL_VALUES = LABEL_VALUES;
export const KARPENTER_ANTI_AFFINITY_LABELS: Readonly<Record<string, string>> = { app: 'nginx' };
/** Karpenter's test pods carry this label for clean-up (its `test.ObjectMeta`); no selector in the mix matches it. */
const KARPENTER_DISCOVERY_LABEL = { 'testing/cluster': 'unspecified' };
/** The affinity group's label key, spelled as Karpenter's benchmark spells it. */
export const KARPENTER_AFFINITY_KEY = 'my-affininity';

function karpenterPod(rng: Rng, group: KarpenterGroup, name: string): Pod {
  // Karpenter draws, per pod: the pod's label, then (spread groups) the selector's label, then cpu, then memory.
  const draw = (): Record<string, string> => ({ 'my-label': rng.pick(LABEL_VALUES) });
  const meta = { typed: true, name, namespace: 'default', uid: `${name}-uid` } as const;
  // Spelled as Karpenter lists them: millicores and MiB.
  const requests = () => ({ cpu: `${rng.pick(CPU)}m`, memory: `${rng.pick(MEMORY)}Mi` });
  switch (group) {
    case 'generic':
      return pod({ ...meta, labels: { ...KARPENTER_DISCOVERY_LABEL, ...draw() }, ...requests() });
    case 'zone-spread':
    case 'hostname-spread': {
      const labels = { ...KARPENTER_DISCOVERY_LABEL, ...draw() };
      const selector = draw();
      return pod({
        ...meta,
        labels,
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: group === 'zone-spread' ? LabelZone : LabelHostname,
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: selector },
          },
        ],
        ...requests(),
      });
    }
    case 'zone-affinity':
    case 'hostname-affinity': {
      const own = { [KARPENTER_AFFINITY_KEY]: rng.pick(LABEL_VALUES) };
      return pod({
        ...meta,
        labels: { ...KARPENTER_DISCOVERY_LABEL, ...own },
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              {
                labelSelector: { matchLabels: own },
                topologyKey: group === 'zone-affinity' ? LabelZone : LabelHostname,
              },
            ],
          },
        },
        ...requests(),
      });
    }
    case 'hostname-anti-affinity':
      return pod({
        ...meta,
        labels: { ...KARPENTER_DISCOVERY_LABEL, ...KARPENTER_ANTI_AFFINITY_LABELS },
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { ...KARPENTER_ANTI_AFFINITY_LABELS } }, topologyKey: LabelHostname },
            ],
          },
        },
        ...requests(),
      });
  }
}

/**
 * Karpenter's scheduling-benchmark pods, as its `makeDiversePods` builds them: `floor(count / groups)` pods per group
 * in group order, then the remainder as more generic pods at the end. Pods are named `<group>-<i>` (Karpenter's are
 * random) and drawn from a seeded generator (Karpenter's is Go's math/rand with seed 42, which this does not
 * reproduce draw for draw: the distributions are the same, the individual pods are not).
 */
export function karpenterDiversePods(
  count: number,
  seed: number,
  groups: readonly KarpenterGroup[] = KARPENTER_GROUPS,
): Pod[] {
  const rng = createRng(seed);
  const per = Math.floor(count / groups.length);
  const pods: Pod[] = [];
  for (const group of groups) for (let i = 0; i < per; i++) pods.push(karpenterPod(rng, group, `${group}-${i}`));
  for (let i = per; pods.length < count; i++) pods.push(karpenterPod(rng, 'generic', `generic-${i}`));
  return pods;
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
    const base = { name: `distinct-${i}`, cpu: `${cpu}m`, memory: `${mem}Mi` };
    const antiShare = mix.antiAffinity ?? 0;
    const spreadShare = mix.zoneSpread ?? 0;
    if (draw < antiShare) {
      const labels = { app: 'nginx' };
      return pod({
        ...base,
        labels,
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
      });
    }
    if (draw < antiShare + spreadShare) {
      const labels = { app: 'spread' };
      return pod({
        ...base,
        labels,
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'topology.kubernetes.io/zone',
            whenUnsatisfiable: 'DoNotSchedule',
            labelSelector: { matchLabels: labels },
          },
        ],
      });
    }
    return pod({ ...base, labels: { app: 'plain' } });
  });
}
