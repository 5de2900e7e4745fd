// The public API of shared/api: reading, validating, defaulting and converting manifests, and expanding workloads.
export { buildManifestSet, SUPPORTED_KINDS } from './build';
export { crdsYaml, ec2NodeClassCRD, karplessCRDs, nodePoolCRD } from './crds';
export { DEFAULT_NODEPOOL_NAME, defaultNodePool } from './default-nodepool';
export {
  amiFamilyOf,
  DEFAULT_METADATA_OPTIONS,
  defaultBlockDeviceMappings,
  ephemeralBlockDevice,
  type NodePoolInput,
  withNodeClassDefaults,
  withNodePoolDefaults,
} from './defaults';
export { type ExpandedPods, expandPods, PENDING_STATUS, uidFor } from './expand';
export { emptyManifestSet, type ManifestSet, type Replacement } from './manifest-set';
export { isProviderNodePool, leftToOwnerMessage, otherProviderNodeClass } from './node-class-ref';
export { loadDocuments, loadManifests, parseManifests, type ReadStdin, readSourceDocuments } from './parse';
export { restrictedLabelReason } from './restricted';
export { matchesLabelSelector } from './selector';
