// Capacity, overhead and allocatable for one instance type under one EC2NodeClass, with Karpenter's formulas so
// Karpenter users see the same numbers: VM memory overhead 7.5 % (plus 64 MiB on arm64), kube-reserved CPU by the
// GKE-style ladder, kube-reserved memory 11 MiB per pod + 255 MiB, eviction 100 Mi memory and 10 % of the root volume.
// Windows nodes are not ENI-limited: 110 pods unless the kubelet says otherwise, and their pod IPs are the primary
// ENI's secondary addresses, a resource of their own (docs/catalog.md, Windows).
import type { EC2NodeClass, KubeletConfiguration } from '../api/karpenter';
import { parseQuantity, parseResource } from '../api/quantity';
import {
  AMD_GPU,
  AWS_NEURON,
  AWS_NEURON_CORE,
  AWS_POD_ENI,
  CPU,
  EFA,
  EPHEMERAL_STORAGE,
  MEMORY,
  NVIDIA_GPU,
  PODS,
  PRIVATE_IPV4_ADDRESS,
  type ResourceList,
} from '../api/resources';
import { isWindowsFamily } from '../api/windows';
import type { InstanceTypeInfo } from './types';
import { amiFamilyOf, ephemeralStorageBytes, raid0StorageBytes } from './volumes';

const MIB = 2 ** 20;
export const VM_MEMORY_OVERHEAD_PERCENT = 0.075;
export const ARM64_MEMORY_OVERHEAD_MIB = 64;
export const EVICTION_MEMORY_AVAILABLE = 100 * MIB;
export const EVICTION_NODEFS_PERCENT = 0.1;
export const KUBE_RESERVED_EPHEMERAL_STORAGE = 2 ** 30;
/** The kubelet's own default max-pods, which Windows nodes keep (Karpenter does not ENI-limit them). */
export const KUBELET_DEFAULT_MAX_PODS = 110;

export interface Overhead {
  kubeReserved: ResourceList;
  systemReserved: ResourceList;
  evictionThreshold: ResourceList;
}

export interface NodeShape {
  capacity: ResourceList;
  overhead: Overhead;
  allocatable: ResourceList;
}

/** The node class settings that shape allocatable, parsed once so a whole catalog can reuse them. */
export interface AllocatableSettings {
  kubelet?: KubeletConfiguration;
  kubeReserved: ResourceList;
  systemReserved: ResourceList;
  /** Eviction signal values as written ("100Mi", "5%"), hard and soft. */
  memoryAvailable: string[];
  nodefsAvailable: string[];
  rootVolumeBytes: number;
  raid0: boolean;
  /** A Windows AMI family: kubelet-default pod density and the PrivateIPv4Address resource. */
  windows: boolean;
}

function parseList(map: Record<string, string> | undefined): ResourceList {
  const out: ResourceList = {};
  for (const [name, q] of Object.entries(map ?? {})) out[name] = parseResource(name, q);
  return out;
}

export function allocatableSettings(nodeClass?: EC2NodeClass): AllocatableSettings {
  const kubelet = nodeClass?.spec.kubelet;
  const memoryAvailable: string[] = [];
  const nodefsAvailable: string[] = [];
  for (const signals of [kubelet?.evictionHard, kubelet?.evictionSoft]) {
    const mem = signals?.['memory.available'];
    if (mem !== undefined) memoryAvailable.push(mem);
    const fs = signals?.['nodefs.available'];
    if (fs !== undefined) nodefsAvailable.push(fs);
  }
  return {
    ...(kubelet ? { kubelet } : {}),
    kubeReserved: parseList(kubelet?.kubeReserved),
    systemReserved: parseList(kubelet?.systemReserved),
    memoryAvailable,
    nodefsAvailable,
    rootVolumeBytes: ephemeralStorageBytes(nodeClass),
    raid0: nodeClass?.spec.instanceStorePolicy === 'RAID0',
    windows: isWindowsFamily(amiFamilyOf(nodeClass)),
  };
}

/** Pods per node: the ENI limit (110 on Windows) unless kubelet maxPods says otherwise, capped by podsPerCore. */
export function maxPodsFor(info: InstanceTypeInfo, kubelet?: KubeletConfiguration, windows = false): number {
  const byDefault = windows ? KUBELET_DEFAULT_MAX_PODS : info.maxEnis * (info.ipv4PerEni - 1) + 2;
  let pods = kubelet?.maxPods ?? byDefault;
  if (kubelet?.podsPerCore && kubelet.podsPerCore > 0) pods = Math.min(pods, kubelet.podsPerCore * info.vcpu);
  return pods;
}

/** Memory the kubelet sees: the type's memory less the hypervisor's share. */
export function memoryCapacityMiB(info: InstanceTypeInfo): number {
  // The arm64 reservation comes off first; the VM overhead is a share of what is left.
  const memory = info.memoryMiB - (info.arch === 'arm64' ? ARM64_MEMORY_OVERHEAD_MIB : 0);
  return memory - Math.ceil(memory * VM_MEMORY_OVERHEAD_PERCENT);
}

function capacityWith(info: InstanceTypeInfo, s: AllocatableSettings): ResourceList {
  const capacity: ResourceList = {
    [CPU]: info.vcpu * 1000,
    [MEMORY]: memoryCapacityMiB(info) * MIB,
    [PODS]: maxPodsFor(info, s.kubelet, s.windows),
    [EPHEMERAL_STORAGE]: (s.raid0 ? raid0StorageBytes(info) : undefined) ?? s.rootVolumeBytes,
  };
  if (info.gpu && info.gpu.count > 0) {
    capacity[info.gpu.manufacturer === 'amd' ? AMD_GPU : NVIDIA_GPU] = info.gpu.count;
  }
  if (info.accelerator && info.accelerator.count > 0) {
    capacity[AWS_NEURON] = info.accelerator.count;
    if (info.accelerator.cores) capacity[AWS_NEURON_CORE] = info.accelerator.cores;
  }
  if (info.branchEnis && info.branchEnis > 0) capacity[AWS_POD_ENI] = info.branchEnis;
  if (info.efa && info.efa > 0) capacity[EFA] = info.efa;
  if (s.windows && info.ipv4PerEni > 1) capacity[PRIVATE_IPV4_ADDRESS] = info.ipv4PerEni - 1;
  return capacity;
}

export function capacityOf(info: InstanceTypeInfo, nodeClass?: EC2NodeClass): ResourceList {
  return capacityWith(info, allocatableSettings(nodeClass));
}

/** kube-reserved CPU: 6 % of the first core, 1 % of the second, 0.5 % of cores 3–4, 0.25 % of the rest. */
export function kubeReservedCpuMillis(vcpu: number): number {
  const millis = vcpu * 1000;
  const reserved =
    Math.min(millis, 1000) * 0.06 +
    Math.max(0, Math.min(millis, 2000) - 1000) * 0.01 +
    Math.max(0, Math.min(millis, 4000) - 2000) * 0.005 +
    Math.max(0, millis - 4000) * 0.0025;
  return Math.round(reserved);
}

function kubeReservedWith(info: InstanceTypeInfo, pods: number, s: AllocatableSettings): ResourceList {
  return {
    [CPU]: kubeReservedCpuMillis(info.vcpu),
    [MEMORY]: (11 * pods + 255) * MIB,
    [EPHEMERAL_STORAGE]: KUBE_RESERVED_EPHEMERAL_STORAGE,
    ...s.kubeReserved,
  };
}

export function kubeReservedOf(info: InstanceTypeInfo, pods: number, kubelet?: KubeletConfiguration): ResourceList {
  return kubeReservedWith(info, pods, { ...allocatableSettings(), kubeReserved: parseList(kubelet?.kubeReserved) });
}

/** An eviction signal value: an absolute quantity or a percentage of the capacity it guards. */
function signalValue(value: string, capacity: number): number {
  const text = value.trim();
  if (text.endsWith('%')) return Math.ceil((Number(text.slice(0, -1)) / 100) * capacity);
  return Math.ceil(parseQuantity(text));
}

/** Hard and soft thresholds both hold resources back: per signal the larger wins; unset signals keep defaults. */
function evictionWith(capacity: ResourceList, s: AllocatableSettings): ResourceList {
  const storage = capacity[EPHEMERAL_STORAGE] ?? 0;
  const memory = capacity[MEMORY] ?? 0;
  let mem = EVICTION_MEMORY_AVAILABLE;
  if (s.memoryAvailable.length) mem = Math.max(...s.memoryAvailable.map((v) => signalValue(v, memory)));
  let fs = Math.ceil(storage * EVICTION_NODEFS_PERCENT);
  if (s.nodefsAvailable.length) fs = Math.max(...s.nodefsAvailable.map((v) => signalValue(v, storage)));
  return { [MEMORY]: mem, [EPHEMERAL_STORAGE]: fs };
}

export function evictionThresholdOf(capacity: ResourceList, kubelet?: KubeletConfiguration): ResourceList {
  return evictionWith(capacity, allocatableSettings(kubelet ? ({ spec: { kubelet } } as EC2NodeClass) : undefined));
}

export function shapeWith(info: InstanceTypeInfo, s: AllocatableSettings): NodeShape {
  const capacity = capacityWith(info, s);
  const overhead: Overhead = {
    kubeReserved: kubeReservedWith(info, capacity[PODS] ?? 0, s),
    systemReserved: s.systemReserved,
    evictionThreshold: evictionWith(capacity, s),
  };
  const allocatable: ResourceList = { ...capacity };
  for (const list of [overhead.kubeReserved, overhead.systemReserved, overhead.evictionThreshold]) {
    for (const name in list) {
      const have = allocatable[name];
      if (have !== undefined) allocatable[name] = Math.max(0, have - (list[name] as number));
    }
  }
  return { capacity, overhead, allocatable };
}

/** Capacity, overhead and allocatable of `info` on a node of this class. */
export function computeAllocatable(info: InstanceTypeInfo, nodeClass?: EC2NodeClass): NodeShape {
  return shapeWith(info, allocatableSettings(nodeClass));
}
