// The simulated cloud keeps the promises every CloudProvider makes.

import { instanceTypesFor, loadCatalog } from '../../shared/catalog';
import { SimCloud } from '../../shared/sim/sim-cloud';
import { VirtualClock } from '../../shared/sim/virtual-clock';
import { fixtureNodeClass, fixtureNodePool } from '../../testkit/sim-fixtures';
import { describeCloudProviderContract } from './cloud-provider.contract';

describeCloudProviderContract('SimCloud', async () => {
  const catalog = loadCatalog();
  const cloud = new SimCloud({
    clock: new VirtualClock(0),
    seed: 7,
    cluster: 'contract',
    instanceTypes: (nodeClass) => instanceTypesFor(catalog, nodeClass),
  });
  return {
    provider: cloud,
    nodePool: fixtureNodePool,
    nodeClass: fixtureNodeClass,
    injectInsufficientCapacity: (offering) => cloud.injectInsufficientCapacity(offering),
  };
});
