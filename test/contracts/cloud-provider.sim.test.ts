// The simulated cloud keeps the promises every CloudProvider makes.

import { loadCatalog } from '../../shared/catalog';
import { simCloudFromCatalog } from '../../shared/sim/catalog-cloud';
import { VirtualClock } from '../../shared/sim/virtual-clock';
import { fixtureNodeClass, fixtureNodePool } from '../../testkit/sim-fixtures';
import { describeCloudProviderContract } from './cloud-provider.contract';

describeCloudProviderContract('SimCloud', async () => {
  const cloud = simCloudFromCatalog(loadCatalog(), { clock: new VirtualClock(0), seed: 7, cluster: 'contract' });
  return {
    provider: cloud,
    nodePool: fixtureNodePool,
    nodeClass: fixtureNodeClass,
    injectInsufficientCapacity: (offering) => cloud.injectInsufficientCapacity(offering),
  };
});
