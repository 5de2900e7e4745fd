// The instance catalog's public API. Engine code: no AWS SDK here; `catalog refresh` lives in shared/aws.
export {
  type AllocatableSettings,
  ARM64_MEMORY_OVERHEAD_MIB,
  allocatableSettings,
  capacityOf,
  computeAllocatable,
  evictionThresholdOf,
  kubeReservedCpuMillis,
  kubeReservedOf,
  maxPodsFor,
  memoryCapacityMiB,
  type NodeShape,
  type Overhead,
  shapeWith,
  VM_MEMORY_OVERHEAD_PERCENT,
} from './allocatable';
export { describeCatalog, isEmbeddedCatalog } from './describe';
export { EBS_CSI_DRIVER, ebsVolumeLimit } from './ebs-limits';
export { allocatableSettingsKey, type InstanceTypeOptions, instanceTypesFor } from './instance-types';
export { labelsFor } from './labels';
export { EMBEDDED_CATALOG_NAME, embeddedSnapshot, loadCatalog, parseCatalogText, readCatalogFile } from './load';
export { type InstanceTypeName, parseInstanceTypeName } from './names';
export { cheapestPrice, offeringKey, offeringsFor, unavailableKeys } from './offerings';
export { serializeCatalog } from './serialize';
export type {
  Arch,
  CapacityType,
  Catalog,
  InstanceType,
  InstanceTypeInfo,
  NodeOS,
  Offering,
  UnavailableOffering,
  WindowsPrices,
} from './types';
export { validateCatalog } from './validate';
export { type AmiFamily, amiFamilyOf, ephemeralStorageBytes, raid0StorageBytes } from './volumes';
