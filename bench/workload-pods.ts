// The pods of Karpenter's scheduling benchmark, drawn from a seeded RNG so every run sees the same pods. One fifth
// each: no constraints, zone spread, hostname spread, zone self-affinity and hostname self-anti-affinity. Labels come
// from a small alphabet, so many pods share a selector, as in Karpenter's benchmark.
import type { Pod } from '../shared/api/kube';
import { LabelHostname, LabelZone } from '../shared/api/labels';
import { createRng, type Rng } from '../shared/sim/rng';

export const CPU_CHOICES = ['100m', '250m', '500m', '1', '1500m'] as const;
export const MEMORY_CHOICES = ['100Mi', '256Mi', '512Mi', '1Gi', '2Gi', '4Gi'] as const;
const LABEL_VALUES = ['a', 'b', 'c', 'd', 'e', 'f', 'g'] as const;

export type PodShape = 'generic' | 'zone-spread' | 'hostname-spread' | 'zone-affinity' | 'hostname-anti-affinity';
export const MIXED_SHAPES: readonly PodShape[] = [
  'generic',
  'zone-spread',
  'hostname-spread',
  'zone-affinity',
  'hostname-anti-affinity',
];

function basePod(rng: Rng, name: string, labels: Record<string, string>): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench', uid: `${name}-uid`, labels },
    spec: {
      containers: [
        { name: 'app', resources: { requests: { cpu: rng.pick(CPU_CHOICES), memory: rng.pick(MEMORY_CHOICES) } } },
      ],
    },
  };
}

function makePod(rng: Rng, shape: PodShape, name: string): Pod {
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

/** `count` pods split evenly over `shapes` (in blocks, as Karpenter builds them), named `<shape>-<i>`. */
export function benchmarkPods(count: number, seed: number, shapes: readonly PodShape[] = MIXED_SHAPES): Pod[] {
  const rng = createRng(seed);
  const pods: Pod[] = [];
  shapes.forEach((shape, s) => {
    const n = Math.floor(count / shapes.length) + (s < count % shapes.length ? 1 : 0);
    for (let i = 0; i < n; i++) pods.push(makePod(rng, shape, `${shape}-${i}`));
  });
  return pods;
}
