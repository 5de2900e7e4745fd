import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../../testkit/manifests';
import { parseManifests } from '../parse';

const NODEPOOL = `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      kubelet: {maxPods: 58}
  disruption:
    consolidationPolicy: WhenUnderutilized
    expireAfter: 168h
`;
const NODECLASS = `apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole-demo
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`;

describe('v1beta1 conversion', () => {
  const set = parseManifests(`${NODEPOOL}---\n${NODECLASS}`, 'beta.yaml');

  it('renames WhenUnderutilized, moves expireAfter, and keeps consolidateAfter 0s', () => {
    const np = set.nodePools[0];
    expect(np?.apiVersion).toBe('karpenter.sh/v1');
    expect(np?.spec.disruption).toEqual({
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfter: '0s',
      budgets: [{ nodes: '10%' }],
    });
    expect(np?.spec.template.spec.expireAfter).toBe('168h');
    expect(np?.spec.template.spec.nodeClassRef).toEqual({
      group: 'karpenter.k8s.aws',
      kind: 'EC2NodeClass',
      name: 'default',
    });
  });

  it('moves kubelet to the EC2NodeClass, adds the alias, and keeps the v1beta1 hop limit', () => {
    const nc = set.nodeClasses[0];
    expect(nc?.apiVersion).toBe('karpenter.k8s.aws/v1');
    expect(nc?.spec.kubelet).toEqual({ maxPods: 58 });
    expect(nc?.spec.amiSelectorTerms).toEqual([{ alias: 'al2023@latest' }]);
    expect(nc?.spec.metadataOptions?.httpPutResponseHopLimit).toBe(2);
  });

  it('says what changed', () => {
    expect(set.warnings).toEqual([
      'beta.yaml#1 NodePool/general: spec.disruption.consolidationPolicy: WhenUnderutilized is named WhenEmptyOrUnderutilized in v1',
      'beta.yaml#1 NodePool/general: spec.disruption.consolidateAfter: v1 requires it; 0s keeps the v1beta1 behaviour',
      'beta.yaml#1 NodePool/general: spec.disruption.expireAfter: moves to spec.template.spec.expireAfter',
      'beta.yaml#1 NodePool/general: spec.template.spec.nodeClassRef.apiVersion: becomes group: karpenter.k8s.aws',
      'beta.yaml#1 NodePool/general: spec.template.spec.kubelet: moves to EC2NodeClass/default spec.kubelet',
      'beta.yaml#1 NodePool/general: converted from karpenter.sh/v1beta1 to karpenter.sh/v1',
      'beta.yaml#2 EC2NodeClass/default: spec.amiSelectorTerms: required in v1; alias al2023@latest selects the latest AL2023 AMI, as amiFamily alone did',
      'beta.yaml#2 EC2NodeClass/default: spec.metadataOptions.httpPutResponseHopLimit: v1beta1 defaulted it to 2 and v1 to 1; 2 is written so pods keep reaching instance metadata',
      'beta.yaml#2 EC2NodeClass/default: converted from karpenter.k8s.aws/v1beta1 to karpenter.k8s.aws/v1',
    ]);
  });

  it('rejects Ubuntu, which v1 dropped', () => {
    expect(problemsOf(NODECLASS.replace('AL2023', 'Ubuntu'), 'u.yaml')).toEqual([
      'u.yaml#1 EC2NodeClass/default: spec.amiFamily: Ubuntu is not supported by Karpenter v1: use amiFamily Custom with amiSelectorTerms and your own userData',
    ]);
  });
});
