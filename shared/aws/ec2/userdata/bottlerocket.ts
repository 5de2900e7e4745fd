// Bottlerocket reads TOML settings. The user's TOML is the base; the cluster identity, labels, taints and kubelet
// settings Karpless computes are merged over it (labels and taints key by key), as Karpenter does.
import { parse, stringify, type TomlTable } from 'smol-toml';
import { type BootstrapInput, kubeletLabels, uniqueTaints } from './input';

const isTable = (v: unknown): v is TomlTable =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function table(parent: TomlTable, key: string): TomlTable {
  const cur = parent[key];
  if (isTable(cur)) return cur;
  const t: TomlTable = {};
  parent[key] = t;
  return t;
}

export function bottlerocketUserData(input: BootstrapInput): string {
  let doc: TomlTable = {};
  if (input.customUserData?.trim()) {
    try {
      doc = parse(input.customUserData);
    } catch (err) {
      throw new Error(`userData: Bottlerocket userData must be TOML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const k8s = table(table(doc, 'settings'), 'kubernetes');
  k8s['cluster-name'] = input.cluster.name;
  k8s['api-server'] = input.cluster.endpoint;
  k8s['cluster-certificate'] = input.cluster.caData;
  const kubelet = input.kubelet;
  const dns = kubelet?.clusterDNS?.[0];
  if (dns) k8s['cluster-dns-ip'] = dns;
  const maxPods = kubelet?.maxPods ?? input.maxPods;
  if (maxPods !== undefined) k8s['max-pods'] = maxPods;
  if (kubelet?.kubeReserved) Object.assign(table(k8s, 'kube-reserved'), kubelet.kubeReserved);
  if (kubelet?.systemReserved) Object.assign(table(k8s, 'system-reserved'), kubelet.systemReserved);
  if (kubelet?.evictionHard) Object.assign(table(k8s, 'eviction-hard'), kubelet.evictionHard);
  if (kubelet?.imageGCHighThresholdPercent !== undefined) {
    k8s['image-gc-high-threshold-percent'] = kubelet.imageGCHighThresholdPercent;
  }
  if (kubelet?.imageGCLowThresholdPercent !== undefined) {
    k8s['image-gc-low-threshold-percent'] = kubelet.imageGCLowThresholdPercent;
  }
  if (kubelet?.cpuCFSQuota !== undefined) k8s['cpu-cfs-quota-enforced'] = kubelet.cpuCFSQuota;
  if (kubelet?.evictionMaxPodGracePeriod !== undefined) {
    k8s['eviction-max-pod-grace-period'] = kubelet.evictionMaxPodGracePeriod;
  }
  const labels = table(k8s, 'node-labels');
  for (const [k, v] of kubeletLabels(input.labels)) labels[k] = v;
  const taints = table(k8s, 'node-taints');
  for (const t of uniqueTaints(input.taints)) {
    const entry = `${t.value ?? ''}:${t.effect}`;
    const cur = taints[t.key];
    const list = Array.isArray(cur) ? cur.filter((e): e is string => typeof e === 'string') : [];
    // One key may carry several effects; replace only the entry with the same effect.
    taints[t.key] = [...list.filter((e) => !e.endsWith(`:${t.effect}`)), entry];
  }
  return `${stringify(doc)}\n`;
}
