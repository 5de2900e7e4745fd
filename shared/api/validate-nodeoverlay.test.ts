// Mirrors Karpenter's pkg/apis/v1alpha1/nodeoverlay_validation_cel_test.go ("CEL/Validation"), and its CRD's
// patterns for price and priceAdjustment.
import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../testkit/manifests';

function overlayProblems(spec: string): string[] {
  const yaml = `apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata:\n  name: test\nspec:\n${spec}`;
  return problemsOf(yaml, 'overlay.yaml').map((p) => p.replace('overlay.yaml#1 NodeOverlay/test: ', ''));
}

const req = (key: string, operator: string, values?: string) =>
  `  requirements:\n    - key: ${key}\n      operator: ${operator}\n${values !== undefined ? `      values: ${values}\n` : ''}`;

describe('NodeOverlay CEL/Validation', () => {
  it('accepts a priceAdjustment alone and a capacity alone', () => {
    expect(overlayProblems(`${req('karpenter.sh/capacity-type', 'Exists')}  priceAdjustment: "+1%"\n`)).toEqual([]);
    expect(overlayProblems(`  capacity:\n    smarter-devices/fuse: 1\n`)).toEqual([]);
  });

  it("refuses both 'price' and 'priceAdjustment'", () => {
    expect(overlayProblems(`  price: "5.00"\n  priceAdjustment: "+10%"\n`)).toEqual([
      "spec: cannot set both 'price' and 'priceAdjustment'",
    ]);
  });

  describe('Requirements', () => {
    it('should succeed for valid requirement keys', () => {
      for (const key of ['Test', 'test.com/Test', 'test.com.com/test', 'key-only']) {
        expect(overlayProblems(`${req(key, 'Exists')}  price: "1"\n`)).toEqual([]);
      }
    });
    it('should fail for invalid requirement keys', () => {
      for (const key of ['test.com.com}', 'Test.com/test', 'test/test/test', 'test/', '/test']) {
        expect(overlayProblems(`${req(JSON.stringify(key), 'Exists')}  price: "1"\n`)).not.toEqual([]);
      }
    });
    it('should allow for the karpenter.sh/nodepool label', () => {
      expect(overlayProblems(`${req('karpenter.sh/nodepool', 'In', '[default]')}  price: "1"\n`)).toEqual([]);
    });
    it('should fail for unsupported ops', () => {
      expect(overlayProblems(`${req('topology.kubernetes.io/zone', 'unknown', '[test]')}  price: "1"\n`)).toHaveLength(
        1,
      );
    });
    it('should fail for restricted domains', () => {
      // Karpenter's IsRestrictedLabel with the AWS provider's domains; kubernetes.io and k8s.io are open to overlays.
      expect(overlayProblems(`${req('kubernetes.io/hostname', 'In', '[a]')}  price: "1"\n`)).toEqual([
        'spec.requirements[0].key: label "kubernetes.io/hostname" is restricted',
      ]);
      for (const domain of ['karpenter.k8s.aws', 'karpenter.sh']) {
        expect(overlayProblems(`${req(`${domain}/test`, 'In', '[test]')}  price: "1"\n`)).toEqual([
          `spec.requirements[0].key: label domain "${domain}" is restricted`,
        ]);
      }
    });
    it('should allow restricted domains exceptions', () => {
      for (const domain of ['kops.k8s.io', 'node.kubernetes.io']) {
        expect(overlayProblems(`${req(`${domain}/test`, 'In', '[test]')}  price: "1"\n`)).toEqual([]);
      }
    });
    it('should allow empty requirements', () => {
      expect(overlayProblems(`  requirements: []\n  price: "1"\n`)).toEqual([]);
    });
    it('should fail with invalid GT or LT values', () => {
      for (const [op, values] of [
        ['Gt', '[]'],
        ['Gt', '["1", "2"]'],
        ['Gt', '["a"]'],
        ['Lt', '[]'],
        ['Lt', '["1", "2"]'],
        ['Lt', '["a"]'],
      ] as const) {
        expect(overlayProblems(`${req('topology.kubernetes.io/zone', op, values)}  price: "1"\n`)).not.toEqual([]);
      }
    });
    it('refuses more than 100 requirements', () => {
      const many = Array.from({ length: 101 }, (_, i) => `    - {key: a.io/k${i}, operator: Exists}\n`).join('');
      expect(overlayProblems(`  requirements:\n${many}  price: "1"\n`)).toEqual([
        'spec.requirements: must have at most 100 requirements, got 101',
      ]);
    });
  });

  describe('priceAdjustment', () => {
    it.each(['+1%', '+123%', '-15%', '-100%', '+43', '-0.5', '+1.25'])('should allow %s', (v) => {
      expect(overlayProblems(`  priceAdjustment: "${v}"\n`)).toEqual([]);
    });
    it.each(['1%', '43', '-101%', '-150%', '+x', '10'])('should refuse %s', (v) => {
      expect(overlayProblems(`  priceAdjustment: "${v}"\n`)).toHaveLength(1);
    });
  });

  describe('price', () => {
    it.each(['5', '5.00', '0.125'])('should allow %s', (v) => {
      expect(overlayProblems(`  price: "${v}"\n`)).toEqual([]);
    });
    it.each(['-1', '+1', '1.', 'abc'])('should refuse %s', (v) => {
      expect(overlayProblems(`  price: "${v}"\n`)).toHaveLength(1);
    });
  });

  describe('Capacity', () => {
    it('should allow custom resources', () => {
      expect(overlayProblems(`  capacity:\n    smarter-devices/fuse: 1\n`)).toEqual([]);
    });
    it.each(['cpu', 'memory', 'ephemeral-storage', 'pods'])('should not allow %s resources override', (r) => {
      expect(overlayProblems(`  capacity:\n    ${r}: "1"\n`)).toEqual([
        `spec.capacity["${r}"]: invalid resource restricted: an overlay adds extended resources only, never cpu, memory, ephemeral-storage or pods`,
      ]);
    });
  });

  it('weight is bounded 1..10000', () => {
    expect(overlayProblems(`  weight: 0\n  price: "1"\n`)).toHaveLength(1);
    expect(overlayProblems(`  weight: 10001\n  price: "1"\n`)).toHaveLength(1);
    expect(overlayProblems(`  weight: 10000\n  price: "1"\n`)).toEqual([]);
  });

  it('refuses another apiVersion', () => {
    const yaml = 'apiVersion: karpenter.sh/v1\nkind: NodeOverlay\nmetadata:\n  name: test\nspec:\n  price: "1"\n';
    expect(problemsOf(yaml, 'o.yaml')).toEqual([
      'o.yaml#1 NodeOverlay/test: apiVersion: "karpenter.sh/v1" is not supported for NodeOverlay; use karpenter.sh/v1alpha1',
    ]);
  });
});

describe('Static NodePool validation', () => {
  const pool = (extra: string) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: static
spec:
  replicas: 3
${extra}  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: R
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
`;
  it('accepts replicas with limits.nodes', () => {
    expect(problemsOf(pool('  limits:\n    nodes: "5"\n'), 'p.yaml')).toEqual([]);
  });
  it("rejects 'weight' on a static NodePool", () => {
    expect(problemsOf(pool('  weight: 10\n'), 'p.yaml')).toEqual([
      "p.yaml#1 NodePool/static: spec.weight: 'weight' is not supported on static NodePools",
    ]);
  });
  it("rejects limits other than 'nodes'", () => {
    expect(problemsOf(pool('  limits:\n    cpu: "100"\n'), 'p.yaml')).toEqual([
      "p.yaml#1 NodePool/static: spec.limits: only 'limits.nodes' is supported on static NodePools",
    ]);
  });
  it('rejects negative replicas', () => {
    expect(problemsOf(pool('').replace('replicas: 3', 'replicas: -1'), 'p.yaml')).toHaveLength(1);
  });
});
