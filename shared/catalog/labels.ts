// Karpenter's well-known labels for one instance type, derived from its facts. Zone, zone id and capacity type vary
// per offering and are not here. A label whose fact is unknown is left out, as Karpenter does, so `DoesNotExist`
// selects those types.
import {
  LabelArch,
  LabelInstanceAcceleratorCount,
  LabelInstanceAcceleratorManufacturer,
  LabelInstanceAcceleratorName,
  LabelInstanceCapacityFlex,
  LabelInstanceCategory,
  LabelInstanceCPU,
  LabelInstanceCPUManufacturer,
  LabelInstanceCPUSustainedClockSpeedMhz,
  LabelInstanceEBSBandwidth,
  LabelInstanceEncryptionInTransitSupported,
  LabelInstanceFamily,
  LabelInstanceGeneration,
  LabelInstanceGPUCount,
  LabelInstanceGPUManufacturer,
  LabelInstanceGPUMemory,
  LabelInstanceGPUName,
  LabelInstanceHypervisor,
  LabelInstanceLocalNVME,
  LabelInstanceMemory,
  LabelInstanceNetworkBandwidth,
  LabelInstanceSize,
  LabelInstanceType,
  LabelOS,
  LabelRegion,
} from '../api/labels';
import type { InstanceTypeInfo, NodeOS } from './types';

export function labelsFor(info: InstanceTypeInfo, region: string, os: NodeOS = 'linux'): Record<string, string> {
  const labels: Record<string, string> = {
    [LabelInstanceType]: info.name,
    [LabelArch]: info.arch,
    [LabelOS]: os,
    [LabelRegion]: region,
    [LabelInstanceCategory]: info.category,
    [LabelInstanceFamily]: info.family,
    [LabelInstanceGeneration]: String(info.generation),
    [LabelInstanceSize]: info.size,
    [LabelInstanceCPU]: String(info.vcpu),
    [LabelInstanceMemory]: String(info.memoryMiB),
    [LabelInstanceEncryptionInTransitSupported]: String(info.encryptionInTransit ?? false),
    [LabelInstanceCapacityFlex]: String(info.capabilityFlex ?? false),
  };
  if (info.cpuManufacturer) labels[LabelInstanceCPUManufacturer] = info.cpuManufacturer;
  if (info.cpuClockMhz !== undefined) labels[LabelInstanceCPUSustainedClockSpeedMhz] = String(info.cpuClockMhz);
  if (info.networkBandwidthMbps) labels[LabelInstanceNetworkBandwidth] = String(info.networkBandwidthMbps);
  if (info.ebsBandwidthMbps) labels[LabelInstanceEBSBandwidth] = String(info.ebsBandwidthMbps);
  // Bare metal has no hypervisor: Karpenter's label is then present and empty.
  labels[LabelInstanceHypervisor] = info.hypervisor;
  if (info.localNvmeGiB) labels[LabelInstanceLocalNVME] = String(info.localNvmeGiB);
  // A fractional GPU (g6f) has a count of 0 and still names its GPU.
  if (info.gpu) {
    labels[LabelInstanceGPUName] = info.gpu.name;
    labels[LabelInstanceGPUManufacturer] = info.gpu.manufacturer;
    labels[LabelInstanceGPUCount] = String(info.gpu.count);
    labels[LabelInstanceGPUMemory] = String(info.gpu.memoryMiB);
  }
  if (info.accelerator) {
    labels[LabelInstanceAcceleratorName] = info.accelerator.name;
    labels[LabelInstanceAcceleratorManufacturer] = info.accelerator.manufacturer;
    labels[LabelInstanceAcceleratorCount] = String(info.accelerator.count);
  }
  return labels;
}
