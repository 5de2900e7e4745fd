// The simulated cloud keeps the promises every CloudProvider makes.
import { describeCloudProviderContract } from '../../test/contracts/cloud-provider.contract';
import { fixtureNodeClass, fixtureNodePool } from '../../testkit/sim-fixtures';
import { loadCatalog } from '../catalog';
import { simCloudFromCatalog } from './catalog-cloud';
import { VirtualClock } from './virtual-clock';

describeCloudProviderContract('SimCloud', async () => {
  const cloud = simCloudFromCatalog(loadCatalog(), { clock: new VirtualClock(0), seed: 7, cluster: 'contract' });
  return {
    provider: cloud,
    nodePool: fixtureNodePool,
    nodeClass: fixtureNodeClass,
    injectInsufficientCapacity: (offering) => cloud.injectInsufficientCapacity(offering),
  };
});
