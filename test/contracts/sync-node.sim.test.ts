import type { Node } from '../../shared/api/kube';
import { SimCluster } from '../../shared/sim/sim-cluster';
import { VirtualClock } from '../../shared/sim/virtual-clock';
import { syncNodeContract } from './sync-node.contract';

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
