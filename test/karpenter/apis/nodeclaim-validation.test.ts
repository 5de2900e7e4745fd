// kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation_cel_test.go, Context("Requirements"), the bounds cases,
// against Karpless's parser (NodeClaim objects come in with cluster state).
import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../../testkit/manifests';

function problems(requirement: object): string[] {
  const claim = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: 'claim' },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [requirement],
    },
  };
  return problemsOf(JSON.stringify(claim), 'claims.yaml');
}

describe('Validation', () => {
  describe('Requirements', () => {
    it.each([
      ['GT or LT', ['Gt', 'Lt']],
      ['GTE or LTE', ['Gte', 'Lte']],
    ] as [string, string[]][])('should fail with invalid %s values', (_, ops) => {
      for (const operator of ops) {
        for (const values of [[], ['1', '2'], ['a'], ['-1']]) {
          const r = { key: 'topology.kubernetes.io/zone', operator, values };
          expect(problems(r), JSON.stringify(r)).toHaveLength(1);
        }
        expect(problems({ key: 'topology.kubernetes.io/zone', operator, values: ['-1'] })).toEqual([
          `claims.yaml#1 NodeClaim/claim: spec.requirements[0].values[0]: "-1" must be a non-negative integer for operator ${operator}`,
        ]);
      }
    });
  });
});
