// Wires the simulated cloud to the simulated cluster: a launched instance registers as a Node, a terminated one
// takes its Node with it (as the cloud node-lifecycle controller would).
import type { SimCloud } from './sim-cloud';
import type { SimCluster } from './sim-cluster';

export function connectCloudToCluster(cloud: SimCloud, cluster: SimCluster): void {
  cloud.onLaunch((launch) => cluster.registerLaunch(launch));
  cloud.onDelete((instance) => {
    const node = cluster.nodeForProviderId(instance.providerID);
    if (node) void cluster.deleteNode(node.metadata.name);
  });
}
