import { syncNodeContract } from '../../test/contracts/sync-node.contract';
import type { Node } from '../api/kube';
import { SimCluster } from './sim-cluster';
import { VirtualClock } from './virtual-clock';

syncNodeContract('SimCluster', () => {
  const cluster = new SimCluster({ clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
  return {
    cluster,
    addNode: (name, labels, taints) => {
      const node: Node = { kind: 'Node', metadata: { name, labels }, spec: { taints } };
      cluster.load([node]);
    },
  };
});
