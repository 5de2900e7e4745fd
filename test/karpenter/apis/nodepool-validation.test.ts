// kubernetes-sigs/karpenter pkg/apis/v1/nodepool_validation_cel_test.go, against Karpless's parser and the NodePool
// CRD `karpless crds` prints: what the CRD accepts and refuses, with the parser naming file, object and field path.
import { describe, expect, it } from 'vitest';
import { nodePoolCRD } from '../../../shared/api/crds/index';
import { testNodePool } from '../../../testkit/bed';
import { problemsOf, VALID_NODECLASS } from '../../../testkit/manifests';

/** Karpenter's BeforeEach NodePool as a manifest, changed by one case; the problems it raises. */
function problems(change: (spec: Record<string, unknown>) => void): string[] {
  const pool = testNodePool('default') as unknown as { spec: Record<string, unknown> };
  const { weight: _weight, ...spec } = structuredClone(pool.spec);
  change(spec);
  return problemsOf(`${JSON.stringify({ ...pool, spec })}\n---\n${VALID_NODECLASS}`, 'np.yaml');
}
const withPolicy = (value: string) => (spec: Record<string, unknown>) => {
  spec.disruption = { ...(spec.disruption as object), consolidationPolicy: value };
};

/** The NodePool CRD's schema for spec.disruption.consolidationPolicy. */
function policySchema(): { enum?: string[]; default?: string } {
  const version = nodePoolCRD().spec.versions[0] as unknown as {
    schema: { openAPIV3Schema: { properties: Record<string, { properties: Record<string, { properties: object }> }> } };
  };
  const disruption = version.schema.openAPIV3Schema.properties.spec?.properties.disruption as unknown as {
    properties: Record<string, { enum?: string[]; default?: string }>;
  };
  return disruption.properties.consolidationPolicy ?? {};
}

describe('CEL/Validation', () => {
  describe('Disruption', () => {
    it.each(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'])(
      'should succeed on a valid consolidationPolicy (%s)',
      (value) => {
        expect(problems(withPolicy(value))).toEqual([]);
        expect(policySchema().enum).toContain(value);
      },
    );

    it.each([
      ['quoted 1', '1'],
      ['quoted 2', '2'],
      ['quoted 3', '3'],
      ['level 0', '0'],
      ['level 4', '4'],
      ['level 10', '10'],
      ['lowercase balanced', 'balanced'],
      ['lowercase whenempty', 'whenempty'],
      ['empty string', ''],
      ['WhenUnderutilized', 'WhenUnderutilized'],
      ['arbitrary string', 'foo'],
    ])('should fail on an invalid consolidationPolicy (%s)', (_, value) => {
      const found = problems(withPolicy(value));
      expect(found).toHaveLength(1);
      expect(found[0]).toContain('np.yaml#1 NodePool/default: spec.disruption.consolidationPolicy: ');
      expect(found[0]).toContain('is not one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced');
      expect(policySchema().enum).not.toContain(value);
    });

    it.each(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'])(
      'should pass RuntimeValidate for valid consolidationPolicy (%s)',
      (value) => expect(problems(withPolicy(value))).toEqual([]),
    );

    it('keeps WhenEmptyOrUnderutilized as the default in the CRD', () => {
      expect(policySchema()).toMatchObject({
        enum: ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'],
        default: 'WhenEmptyOrUnderutilized',
      });
    });
  });

  describe('Requirements', () => {
    /** Karpenter's eight bad bounds for two operators, each as the NodePool's only requirement. */
    const bad = (ops: [string, string]) =>
      ops.flatMap((operator) =>
        [[], ['1', '2'], ['a'], ['-1']].map((values) => ({ key: 'topology.kubernetes.io/zone', operator, values })),
      );
    const withRequirement = (r: object) => (spec: Record<string, unknown>) => {
      const template = spec.template as { spec: Record<string, unknown> };
      template.spec = { ...template.spec, requirements: [r] };
    };

    it.each([
      ['GT or LT', ['Gt', 'Lt']],
      ['GTE or LTE', ['Gte', 'Lte']],
    ] as [string, [string, string]][])('should fail with invalid %s values', (_, ops) => {
      for (const r of bad(ops)) expect(problems(withRequirement(r)), JSON.stringify(r)).toHaveLength(1);
      // A negative bound names the file, the object and the field path.
      for (const operator of ops) {
        expect(problems(withRequirement({ key: 'topology.kubernetes.io/zone', operator, values: ['-1'] }))).toEqual([
          `np.yaml#1 NodePool/default: spec.template.spec.requirements[0].values[0]: "-1" must be a non-negative integer for operator ${operator}`,
        ]);
      }
    });

    it('accepts a bound of 0', () => {
      for (const operator of ['Gt', 'Lt', 'Gte', 'Lte']) {
        expect(problems(withRequirement({ key: 'karpenter.k8s.aws/instance-cpu', operator, values: ['0'] }))).toEqual(
          [],
        );
      }
    });
  });
});
