// The NodePool Karpless uses when the user gives none. Callers say so in their output, so nobody mistakes its
// choices for theirs.
import { withNodeClassDefaults, withNodePoolDefaults } from './defaults';
import type { EC2NodeClass, NodePool } from './karpenter';
import { LabelArch, LabelCapacityType, LabelInstanceCategory, LabelInstanceGeneration, LabelOS } from './labels';

export const DEFAULT_NODEPOOL_NAME = 'default';

export function defaultNodePool(clusterName = 'karpless'): { nodePool: NodePool; nodeClass: EC2NodeClass } {
  const nodePool = withNodePoolDefaults({
    metadata: { name: DEFAULT_NODEPOOL_NAME },
    spec: {
      template: {
        spec: {
          nodeClassRef: { name: DEFAULT_NODEPOOL_NAME },
          requirements: [
            { key: LabelOS, operator: 'In', values: ['linux'] },
            { key: LabelArch, operator: 'In', values: ['amd64'] },
            { key: LabelCapacityType, operator: 'In', values: ['spot', 'on-demand'] },
            { key: LabelInstanceCategory, operator: 'In', values: ['c', 'm', 'r'] },
            { key: LabelInstanceGeneration, operator: 'Gt', values: ['2'] },
          ],
        },
      },
    },
  });
  const nodeClass = withNodeClassDefaults({
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: DEFAULT_NODEPOOL_NAME },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': clusterName } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': clusterName } }],
      role: `KarpenterNodeRole-${clusterName}`,
    },
  });
  return { nodePool, nodeClass };
}
