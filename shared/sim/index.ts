// The simulator: in-memory implementations of the engine's ports, driven by a virtual clock and a seeded RNG.
export { connectCloudToCluster } from './connect';
export { disruptionsAllowed } from './disruption-budget';
export { matchesSelector } from './label-selector';
export { createRng, type Rng } from './rng';
export { type OfferingKey, SimCloud, type SimCloudOptions, type SimLaunch } from './sim-cloud';
export { type ClusterChange, type RecordedEvent, SimCluster, type SimClusterOptions } from './sim-cluster';
export { type TimerId, VirtualClock } from './virtual-clock';
