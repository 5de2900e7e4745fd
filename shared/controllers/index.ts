// The control plane's use-cases: pure TypeScript against the ports, wired to real adapters by functions/* and to
// the simulator by tests and `karpless simulate`.

export { claimHashes, nodeClassHash, nodePoolTemplateHash, specHash } from '../api/hash';
export { claimName } from '../api/ids';
export {
  CLUSTER_DIMENSION,
  METRIC_NAMESPACE,
  type MetricName,
  MetricNames,
  type MetricUnit,
  NODEPOOL_DIMENSION,
} from '../metrics';
export { buildClusterView, type ClusterView, matchNodes } from './cluster-nodes';
export {
  type ControlPlaneConfig,
  type ControlPlaneDeps,
  type ControlPlaneLog,
  controlPlaneConfig,
  DEFAULT_CONFIG,
  type InstanceDeps,
  type MetricFn,
  noMetric,
  type RebalancePolicy,
  type Solver,
  silentLog,
} from './deps';
export {
  type DispatchOptions,
  type DispatchResult,
  handleControlMessage,
  SENDER_CLOCK_SKEW_MS,
  type SweepOutcome,
} from './dispatch';
export { disruptionSweep } from './disruption';
export {
  type DisruptingNode,
  type DisruptionSweepOptions,
  type DisruptionSweepResult,
  defaultSweepEngine,
  type SweepEngine,
} from './disruption-sweep-types';
export { collectGarbage, type GcResult, TagNodeClaim } from './gc';
export { HintCoverage } from './hint-coverage';
export { handleInterruption, type InterruptionResult } from './interruption';
export { type LaunchOutcome, launchClaim } from './launch';
export { isInitialized, type LifecycleResult, reconcileNodes } from './lifecycle';
export { queueTermination, requestReplan } from './messages';
export { type DeletedNodeClaimsResult, terminateDeletedNodeClaims } from './nodeclaim-deletion';
export { couldServe, type OwnedView, ownedView } from './ownership';
export { newestPodCreation, podSetHash, recordPodChanges } from './pod-activity';
export { type ProvisionOptions, provision } from './provision';
export { CLAIM_NAME_SALTS } from './provision-claims';
export type { ProvisionResult } from './provision-result';
export { type CapacityTypeSyncResult, syncReservedCapacityTypes } from './reservation-capacity-type';
export { type ClusterSnapshot, nodeClassNotReady, nodePoolNotReady, overlayPool, readSnapshot } from './snapshot';
export { publishStatus, type StatusResult } from './status';
export {
  evictionGroup,
  groupForEviction,
  isDrainable,
  runTerminationStep,
  type StartTerminationOptions,
  startTermination,
  type TerminationStep,
  terminateStep,
  terminationGraceMs,
} from './termination';
export { handleTerminationQueueMessage, type TerminationQueueResult } from './termination-queue';
export {
  lastProgressAt,
  REDRIVE_BACKOFF_CAP_MS,
  type RedriveResult,
  redriveStalledTerminations,
  redriveWindowMs,
} from './termination-redrive';
