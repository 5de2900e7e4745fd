// What every AMI family's bootstrap needs. Taints here already include startupTaints: the kubelet registers with
// both, and whatever removes startup taints later does so on the node.
import type { KubeletConfiguration } from '../../../api/karpenter';
import type { Taint } from '../../../api/kube';
import type { ClusterInfo } from '../nodeclass';

export interface BootstrapInput {
  cluster: ClusterInfo;
  labels: Record<string, string>;
  taints: Taint[];
  kubelet?: KubeletConfiguration;
  /** The max-pods the scheduler assumed for this node (kubelet.maxPods, else the ENI-limited default). */
  maxPods?: number;
  /** The EC2NodeClass's own userData, merged the way Karpenter merges it. */
  customUserData?: string;
}

// The kubelet refuses to self-apply labels in the kubernetes.io and k8s.io domains except these (NodeRestriction).
const KUBELET_ALLOWED = [
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/',
  'failure-domain.beta.kubernetes.io/',
  'topology.kubernetes.io/',
  'node.kubernetes.io/',
  'kubelet.kubernetes.io/',
  'node-restriction.kubernetes.io/',
];

/** Labels the kubelet may set itself, sorted; the rest are applied by the lifecycle function after registration. */
export function kubeletLabels(labels: Record<string, string>): [string, string][] {
  return Object.entries(labels)
    .filter(([k]) => {
      const domain = k.includes('/') ? (k.split('/')[0] ?? '') : '';
      const restricted =
        domain === 'kubernetes.io' ||
        domain.endsWith('.kubernetes.io') ||
        domain === 'k8s.io' ||
        domain.endsWith('.k8s.io');
      return !restricted || KUBELET_ALLOWED.some((a) => (a.endsWith('/') ? k.startsWith(a) : k === a));
    })
    .sort(([a], [b]) => a.localeCompare(b));
}

export const taintString = (t: Taint) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

/** Taints with duplicates (same key and effect) removed, first one kept, in a stable order. */
export function uniqueTaints(taints: Taint[]): Taint[] {
  const seen = new Set<string>();
  return taints.filter((t) => {
    const k = `${t.key}:${t.effect}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The kubelet flags that register a Linux node with its labels and taints (`--node-labels`,
 * `--register-with-taints`), each present only when there is something to set. */
export function registrationFlags(input: Pick<BootstrapInput, 'labels' | 'taints'>): string[] {
  const flags: string[] = [];
  const labels = kubeletLabels(input.labels);
  if (labels.length) flags.push(`--node-labels=${labels.map(([k, v]) => `${k}=${v}`).join(',')}`);
  const taints = uniqueTaints(input.taints);
  if (taints.length) flags.push(`--register-with-taints=${taints.map(taintString).join(',')}`);
  return flags;
}
