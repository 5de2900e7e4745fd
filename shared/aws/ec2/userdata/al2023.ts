// AL2023 boots through nodeadm: a NodeConfig document in a MIME archive. Like Karpenter, ours comes first and the
// user's parts follow unchanged (nodeadm merges NodeConfigs in order; shell scripts run as usual).
import type { KubeletConfiguration } from '../../../api/karpenter';
import { type BootstrapInput, registrationFlags } from './input';
import { CONTENT_TYPE_NODECONFIG, CONTENT_TYPE_SHELL, isMime, type MimePart, parseMime, serializeMime } from './mime';
import { toBlockYaml, type YamlValue } from './yaml-block';

function kubeletConfig(k: KubeletConfiguration | undefined, maxPods: number | undefined): Record<string, YamlValue> {
  const c: Record<string, YamlValue> = {};
  const mp = k?.maxPods ?? maxPods;
  if (mp !== undefined) c.maxPods = mp;
  if (k?.podsPerCore !== undefined) c.podsPerCore = k.podsPerCore;
  if (k?.clusterDNS?.length) c.clusterDNS = k.clusterDNS;
  if (k?.systemReserved) c.systemReserved = k.systemReserved;
  if (k?.kubeReserved) c.kubeReserved = k.kubeReserved;
  if (k?.evictionHard) c.evictionHard = k.evictionHard;
  if (k?.evictionSoft) c.evictionSoft = k.evictionSoft;
  if (k?.evictionSoftGracePeriod) c.evictionSoftGracePeriod = k.evictionSoftGracePeriod;
  if (k?.evictionMaxPodGracePeriod !== undefined) c.evictionMaxPodGracePeriod = k.evictionMaxPodGracePeriod;
  if (k?.imageGCHighThresholdPercent !== undefined) c.imageGCHighThresholdPercent = k.imageGCHighThresholdPercent;
  if (k?.imageGCLowThresholdPercent !== undefined) c.imageGCLowThresholdPercent = k.imageGCLowThresholdPercent;
  if (k?.cpuCFSQuota !== undefined) c.cpuCFSQuota = k.cpuCFSQuota;
  return c;
}

export function nodeConfig(input: BootstrapInput): string {
  const flags = registrationFlags(input);
  const doc = {
    apiVersion: 'node.eks.aws/v1alpha1',
    kind: 'NodeConfig',
    spec: {
      cluster: {
        name: input.cluster.name,
        apiServerEndpoint: input.cluster.endpoint,
        certificateAuthority: input.cluster.caData,
        cidr: input.cluster.serviceCidr,
      },
      kubelet: { config: kubeletConfig(input.kubelet, input.maxPods), flags },
    },
  };
  return `# Karpless generated NodeConfig\n${toBlockYaml(doc)}`;
}

function userParts(userData: string | undefined): MimePart[] {
  if (!userData?.trim()) return [];
  if (isMime(userData)) return parseMime(userData);
  // A bare document: a NodeConfig if it says so, otherwise a shell script (Karpenter's detection).
  const looksLikeNodeConfig =
    /^\s*kind:\s*NodeConfig\s*$/m.test(userData) && /apiVersion:\s*node\.eks\.aws\//.test(userData);
  return [{ contentType: looksLikeNodeConfig ? CONTENT_TYPE_NODECONFIG : CONTENT_TYPE_SHELL, content: userData }];
}

export function al2023UserData(input: BootstrapInput): string {
  return serializeMime([
    { contentType: CONTENT_TYPE_NODECONFIG, content: nodeConfig(input) },
    ...userParts(input.customUserData),
  ]);
}
