// Helpers for this module's tests: parse YAML and return the problems it raises.

import { parseManifests } from '../shared/api/parse';
import { ValidationError } from '../shared/errors';

/** The validation problems of `yaml`, or [] when it parses. */
export function problemsOf(yaml: string, file = 'test.yaml'): string[] {
  try {
    parseManifests(yaml, file);
    return [];
  } catch (err) {
    if (err instanceof ValidationError) return err.problems;
    throw err;
  }
}

export const NODEPOOL_HEADER = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
`;

export const VALID_NODEPOOL = `${NODEPOOL_HEADER}spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
`;

export const VALID_NODECLASS = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`;

/** The EC2NodeClass `default` as one item of a scenario step's `manifests:` list (indented to sit under it). */
export const SCENARIO_NODECLASS = `        - apiVersion: karpenter.k8s.aws/v1
          kind: EC2NodeClass
          metadata: { name: default }
          spec:
            amiSelectorTerms: [{ alias: al2023@latest }]
            role: KarpenterNodeRole-test
            subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
            securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
`;
