// The NodeClaim CRD (karpenter.sh/v1) with Karpenter's printer columns, so `kubectl get nodeclaims`, k9s and
// eks-node-viewer read the objects the control plane mirrors (docs/kubernetes.md, NodeClaim objects). The spec is a
// NodePool template's spec plus the requested resources; the status is written only by the control plane.
import { templateSpecProps } from './nodepool';
import {
  AGE_COLUMN,
  type CustomResourceDefinition,
  karpenterCRD,
  obj,
  quantity,
  READY_COLUMN,
  resourceSchema,
} from './schema';

export function nodeClaimCRD(): CustomResourceDefinition {
  return karpenterCRD({
    group: 'karpenter.sh',
    kind: 'NodeClaim',
    plural: 'nodeclaims',
    version: 'v1',
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.metadata.labels.node\\.kubernetes\\.io/instance-type' },
      { name: 'Capacity', type: 'string', jsonPath: '.metadata.labels.karpenter\\.sh/capacity-type' },
      { name: 'Zone', type: 'string', jsonPath: '.metadata.labels.topology\\.kubernetes\\.io/zone' },
      { name: 'Node', type: 'string', jsonPath: '.status.nodeName' },
      READY_COLUMN,
      AGE_COLUMN,
      { name: 'ImageID', type: 'string', jsonPath: '.status.imageID', priority: 1 },
      { name: 'ID', type: 'string', jsonPath: '.status.providerID', priority: 1 },
      { name: 'NodePool', type: 'string', jsonPath: '.metadata.labels.karpenter\\.sh/nodepool', priority: 1 },
      { name: 'NodeClass', type: 'string', jsonPath: '.spec.nodeClassRef.name', priority: 1 },
      {
        name: 'Drifted',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Drifted")].status',
        priority: 1,
      },
    ],
    schema: resourceSchema(
      'NodeClaim is one node Karpless launched: a mirror of the claim in its state store.',
      obj(
        'The NodeClaim as requested.',
        {
          ...templateSpecProps,
          resources: obj('The resources the node was requested for.', {
            requests: { type: 'object', description: 'Requested resources.', additionalProperties: quantity() },
          }),
        },
        { required: ['nodeClassRef', 'requirements'] },
      ),
    ),
  });
}
