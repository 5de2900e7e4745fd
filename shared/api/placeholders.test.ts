// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell placeholders are the input under test
import { describe, expect, it } from 'vitest';
import { parseManifests } from './parse';

const POOL = (role: string) => `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: { name: default }
spec:
  role: ${role}
  amiSelectorTerms: [{ alias: al2023@latest }]
  # tags: \${NOT_A_PROBLEM} in a comment
  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: "\${CLUSTER_NAME}" } }]
  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: "\${CLUSTER_NAME}" } }]
`;

describe('unexpanded placeholders', () => {
  it('warns once per name with its first line, ignoring comments', () => {
    const set = parseManifests(POOL('KarpenterNodeRole-${CLUSTER_NAME}-${SUFFIX}'), 'pool.yaml');
    expect(set.warnings.filter((w) => w.includes('is not expanded'))).toEqual([
      'pool.yaml:5: ${CLUSTER_NAME} is not expanded; substitute it first (for example with envsubst)',
      'pool.yaml:5: ${SUFFIX} is not expanded; substitute it first (for example with envsubst)',
    ]);
  });

  it('says nothing when every value is expanded', () => {
    const set = parseManifests(POOL('KarpenterNodeRole-demo').replaceAll('${CLUSTER_NAME}', 'demo'), 'pool.yaml');
    expect(set.warnings.filter((w) => w.includes('is not expanded'))).toEqual([]);
  });
});
