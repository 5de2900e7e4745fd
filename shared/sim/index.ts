// The simulator: in-memory implementations of the engine's ports, driven by a virtual clock and a seeded RNG.
// The catalog-backed engine (default-engine) and the world (world.ts) are imported from their modules, so this index
// stays light.

export { connectCloudToCluster } from './connect';
export { launchedNodeLabels, launchedNodeResources } from './launched-node';
export { simulationObjectsOf } from './manifest-objects';
export { MemoryNodeClaimStore } from './memory-store';
export { instanceFields, nodeLabels, type ReportedNodeClaim } from './node-report';
export { typesAllowedBy } from './pool-types';
export { createRng, type Rng } from './rng';
export { type OfferingKey, SimCloud, type SimCloudOptions, type SimLaunch } from './sim-cloud';
export { type ClusterChange, type RecordedEvent, SimCluster, type SimClusterOptions } from './sim-cluster';
export {
  DEFAULT_POOL_WARNING,
  type LaunchedNodeClaim,
  runSimulation,
  type SimulationEngine,
  type SimulationObjects,
  type SimulationOptions,
  type SimulationResult,
} from './simulation';
export { type TimerId, VirtualClock } from './virtual-clock';
