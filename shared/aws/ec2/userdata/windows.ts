// Windows nodes boot through the EKS-optimized AMI's Start-EKSBootstrap.ps1, in one <powershell> block: the
// EC2NodeClass's own PowerShell first, then the bootstrap call with the cluster, its CA, the kubelet's flags and the
// cluster DNS IP, as Karpenter's AWS provider writes it (docs/aws.md, "Launch behaviour worth knowing when reading
// CloudTrail").
import type { KubeletConfiguration } from '../../../api/karpenter';
import { type BootstrapInput, kubeletLabels, taintString, uniqueTaints } from './input';

const BOOTSTRAP_SCRIPT = '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"';

/** A PowerShell single-quoted string: a quote inside is doubled. */
const psQuote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** `--name="k1=v1,k2=v2"` with keys sorted, or nothing for an empty map. */
function mapFlag(name: string, map: Record<string, string> | undefined, separator: string): string[] {
  const entries = Object.entries(map ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? [`--${name}="${entries.map(([k, v]) => `${k}${separator}${v}`).join(',')}"`] : [];
}

function kubeletFlags(k: KubeletConfiguration | undefined): string[] {
  if (!k) return [];
  const flags: string[] = [];
  if (k.podsPerCore !== undefined) flags.push(`--pods-per-core=${k.podsPerCore}`);
  flags.push(...mapFlag('system-reserved', k.systemReserved, '='));
  flags.push(...mapFlag('kube-reserved', k.kubeReserved, '='));
  flags.push(...mapFlag('eviction-hard', k.evictionHard, '<'));
  flags.push(...mapFlag('eviction-soft', k.evictionSoft, '<'));
  flags.push(...mapFlag('eviction-soft-grace-period', k.evictionSoftGracePeriod, '='));
  if (k.evictionMaxPodGracePeriod !== undefined) {
    flags.push(`--eviction-max-pod-grace-period=${k.evictionMaxPodGracePeriod}`);
  }
  if (k.imageGCHighThresholdPercent !== undefined) {
    flags.push(`--image-gc-high-threshold=${k.imageGCHighThresholdPercent}`);
  }
  if (k.imageGCLowThresholdPercent !== undefined)
    flags.push(`--image-gc-low-threshold=${k.imageGCLowThresholdPercent}`);
  if (k.cpuCFSQuota !== undefined) flags.push(`--cpu-cfs-quota=${k.cpuCFSQuota}`);
  return flags;
}

/** The kubelet flags Start-EKSBootstrap.ps1 passes on: labels, taints, max-pods, then the kubelet settings. */
export function windowsKubeletExtraArgs(input: BootstrapInput): string {
  const flags: string[] = [];
  const labels = kubeletLabels(input.labels);
  if (labels.length) flags.push(`--node-labels="${labels.map(([k, v]) => `${k}=${v}`).join(',')}"`);
  const taints = uniqueTaints(input.taints);
  if (taints.length) flags.push(`--register-with-taints="${taints.map(taintString).join(',')}"`);
  const maxPods = input.kubelet?.maxPods ?? input.maxPods;
  if (maxPods !== undefined) flags.push(`--max-pods=${maxPods}`);
  return [...flags, ...kubeletFlags(input.kubelet)].join(' ');
}

/** The user's script without the <powershell> tags it may carry: the whole userData is one PowerShell block. */
function userScript(custom: string | undefined): string | undefined {
  const text = custom
    ?.trim()
    .replace(/^<powershell>\s*/i, '')
    .replace(/\s*<\/powershell>$/i, '');
  return text ? text : undefined;
}

export function windowsUserData(input: BootstrapInput): string {
  const args = [
    `-EKSClusterName ${psQuote(input.cluster.name)}`,
    `-APIServerEndpoint ${psQuote(input.cluster.endpoint)}`,
    `-Base64ClusterCA ${psQuote(input.cluster.caData)}`,
  ];
  const extra = windowsKubeletExtraArgs(input);
  if (extra) args.push(`-KubeletExtraArgs ${psQuote(extra)}`);
  const dns = input.kubelet?.clusterDNS?.[0];
  if (dns) args.push(`-DNSClusterIP ${psQuote(dns)}`);
  const custom = userScript(input.customUserData);
  return [
    '<powershell>',
    ...(custom ? [custom] : []),
    BOOTSTRAP_SCRIPT,
    `& $EKSBootstrapScriptFile ${args.join(' ')}`,
    '</powershell>',
  ].join('\n');
}
