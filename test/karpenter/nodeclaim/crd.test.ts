// kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodeclaims.yaml: the names and printer columns `kubectl get
// nodeclaims`, k9s and eks-node-viewer read. Karpenter's columns are written out here as they appear in its CRD.
import { describe, expect, it } from 'vitest';
import { nodeClaimCRD } from '../../../shared/api/crds/nodeclaim';

const KARPENTER_COLUMNS = [
  { name: 'Type', type: 'string', jsonPath: '.metadata.labels.node\\.kubernetes\\.io/instance-type' },
  { name: 'Capacity', type: 'string', jsonPath: '.metadata.labels.karpenter\\.sh/capacity-type' },
  { name: 'Zone', type: 'string', jsonPath: '.metadata.labels.topology\\.kubernetes\\.io/zone' },
  { name: 'Node', type: 'string', jsonPath: '.status.nodeName' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  { name: 'ImageID', type: 'string', jsonPath: '.status.imageID', priority: 1 },
  { name: 'ID', type: 'string', jsonPath: '.status.providerID', priority: 1 },
  { name: 'NodePool', type: 'string', jsonPath: '.metadata.labels.karpenter\\.sh/nodepool', priority: 1 },
  { name: 'NodeClass', type: 'string', jsonPath: '.spec.nodeClassRef.name', priority: 1 },
  { name: 'Drifted', type: 'string', jsonPath: '.status.conditions[?(@.type=="Drifted")].status', priority: 1 },
];

describe('karpenter.sh_nodeclaims.yaml', () => {
  it("has Karpenter's names, scope, status subresource and printer columns, in its order", () => {
    const crd = nodeClaimCRD();
    expect(crd.metadata.name).toBe('nodeclaims.karpenter.sh');
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.names).toEqual({
      kind: 'NodeClaim',
      listKind: 'NodeClaimList',
      plural: 'nodeclaims',
      singular: 'nodeclaim',
      categories: ['karpenter'],
    });
    const [v1] = crd.spec.versions;
    expect(v1?.name).toBe('v1');
    expect(v1?.subresources).toEqual({ status: {} });
    expect(v1?.additionalPrinterColumns).toEqual(KARPENTER_COLUMNS);
  });
});
