// The node's ephemeral storage: the volume the kubelet's root directory lives on, as Karpenter picks it.
import type { EC2NodeClass } from '../api/karpenter';
import { parseQuantity } from '../api/quantity';
import { ALIAS_FAMILIES } from '../api/validate-nodeclass';
import type { InstanceTypeInfo } from './types';

export type AmiFamily = NonNullable<EC2NodeClass['spec']['amiFamily']>;

/** Each AMI family's default ephemeral device and its size (the kubelet's filesystem). */
const DEFAULT_EPHEMERAL: Record<AmiFamily, { deviceName: string; sizeGi: number }> = {
  AL2: { deviceName: '/dev/xvda', sizeGi: 20 },
  AL2023: { deviceName: '/dev/xvda', sizeGi: 20 },
  Bottlerocket: { deviceName: '/dev/xvdb', sizeGi: 20 },
  Windows2019: { deviceName: '/dev/sda1', sizeGi: 50 },
  Windows2022: { deviceName: '/dev/sda1', sizeGi: 50 },
  Windows2025: { deviceName: '/dev/sda1', sizeGi: 50 },
  Custom: { deviceName: '/dev/xvda', sizeGi: 20 },
};

/** Karpenter v1 derives the AMI family from an `alias` selector term when `amiFamily` is not set. */
export function amiFamilyOf(nodeClass?: EC2NodeClass): AmiFamily {
  const spec = nodeClass?.spec;
  if (spec?.amiFamily) return spec.amiFamily;
  for (const term of spec?.amiSelectorTerms ?? []) {
    const family = term.alias ? ALIAS_FAMILIES[term.alias.split('@')[0]?.toLowerCase() ?? ''] : undefined;
    if (family) return family;
  }
  return spec?.amiSelectorTerms?.length ? 'Custom' : 'AL2023';
}

/** With instanceStorePolicy RAID0 the kubelet lives on the striped instance store, when the type has one. */
export function raid0StorageBytes(info: InstanceTypeInfo): number | undefined {
  // AWS reports instance storage in GB; Karpenter uses the decimal figure as is.
  return info.localNvmeGiB && info.localNvmeGiB > 0 ? info.localNvmeGiB * 1e9 : undefined;
}

/** The root (kubelet) volume in bytes: the rootVolume mapping, else the AMI family's device, else its default. */
export function ephemeralStorageBytes(nodeClass?: EC2NodeClass): number {
  const spec = nodeClass?.spec;
  const family = amiFamilyOf(nodeClass);
  const fallback = DEFAULT_EPHEMERAL[family];
  const mappings = spec?.blockDeviceMappings ?? [];
  const chosen =
    mappings.find((m) => m.rootVolume) ??
    (family === 'Custom' ? mappings[mappings.length - 1] : mappings.find((m) => m.deviceName === fallback.deviceName));
  const size = chosen?.ebs?.volumeSize;
  return size ? Math.ceil(parseQuantity(size)) : fallback.sizeGi * 2 ** 30;
}
