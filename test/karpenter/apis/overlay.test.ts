// kubernetes-sigs/karpenter pkg/apis/v1alpha1/nodeoverlay_validation_test.go ("CEL/Validation": the CRD's patterns
// and CEL rules, and RuntimeValidate) and pkg/apis/v1alpha1/suite_test.go ("NodeOverlay/OrderByWeight"), case by
// case, against Karpless's parser. Each Karpenter `It` is one `it` of the same name; where both the CRD and
// RuntimeValidate must refuse, Karpless's one validation refuses. Departures are tests of their own, named so.
import { describe, expect, it } from 'vitest';
import { byOverlayPrecedence, type NodeOverlay, type NodeOverlaySpec } from '../../../shared/api/nodeoverlay';
import { problemsOf } from '../../../testkit/manifests';

/** Karpenter's BeforeEach: one requirement, `karpenter.sh/capacity-type Exists`. */
const BASE: NodeOverlaySpec = { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'Exists' }] };

type Req = { key: string; operator: string; values?: string[] };

/** The problems of a NodeOverlay with this spec (merged over Karpenter's BeforeEach), as JSON (YAML) text. */
function problems(spec: Omit<NodeOverlaySpec, 'requirements'> & { requirements?: Req[] }): string[] {
  const doc = {
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: { name: 'test' },
    spec: { ...BASE, ...spec },
  };
  return problemsOf(JSON.stringify(doc), 'o.yaml')
    .map((p) => p.replace('o.yaml#1 NodeOverlay/test: ', ''))
    .filter((p) => !p.includes('changes nothing'));
}
const ok = (spec: Parameters<typeof problems>[0]) => expect(problems(spec)).toEqual([]);
const refused = (spec: Parameters<typeof problems>[0]) => expect(problems(spec)).not.toEqual([]);
const reqs = (...r: Req[]) => ({ requirements: r });
const ZONE = 'topology.kubernetes.io/zone';
const long = 'a'.repeat(250);

describe('CEL/Validation', () => {
  describe('Requirements', () => {
    it('should fail for no values for In operator', () => refused(reqs({ key: 'Test', operator: 'In' })));
    it('should fail for no values for NotIn operator', () => refused(reqs({ key: 'Test', operator: 'NotIn' })));
    it('should succeed for valid requirement keys', () => {
      ok(reqs({ key: 'Test', operator: 'Exists' }));
      ok(
        reqs(
          { key: 'Test', operator: 'Exists' },
          { key: 'test.com/Test', operator: 'Exists' },
          { key: 'test.com.com/test', operator: 'Exists' },
          { key: 'key-only', operator: 'Exists' },
        ),
      );
    });
    it('should fail for invalid requirement keys', () => {
      for (const key of ['test.com.com}', 'Test.com/test', 'test/test/test', 'test/', '/test']) {
        refused(reqs({ key, operator: 'Exists' }));
      }
    });
    it('should allow for the karpenter.sh/nodepool label', () =>
      ok(reqs({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['silly-name'] })));
    it('should fail at runtime for requirement keys that are too long', () => {
      refused(reqs({ key: `test.com.test.${long}/test`, operator: 'Exists' }));
      refused(reqs({ key: `test.com.test/test-${long}`, operator: 'Exists' }));
    });
    it('should allow supported ops', () =>
      ok(
        reqs(
          { key: ZONE, operator: 'In', values: ['test'] },
          { key: ZONE, operator: 'Gt', values: ['1'] },
          { key: ZONE, operator: 'Lt', values: ['1'] },
          { key: ZONE, operator: 'Gte', values: ['1'] },
          { key: ZONE, operator: 'Lte', values: ['1'] },
          { key: ZONE, operator: 'NotIn', values: ['1'] },
          { key: ZONE, operator: 'Exists' },
        ),
      ));
    it('should fail for unsupported ops', () => refused(reqs({ key: ZONE, operator: 'unknown', values: ['test'] })));
    it('should fail for restricted domains', () => {
      // Karpenter's RestrictedLabelDomains with the AWS provider's: karpenter.sh and karpenter.k8s.aws.
      for (const domain of ['karpenter.sh', 'karpenter.k8s.aws']) {
        expect(problems(reqs({ key: `${domain}/test`, operator: 'In', values: ['test'] }))).toEqual([
          `spec.requirements[0].key: label domain "${domain}" is restricted`,
        ]);
      }
    });
    it('should allow kubernetes domains exceptions', () => {
      for (const domain of ['kubernetes.io', 'k8s.io'])
        ok(reqs({ key: `${domain}/test`, operator: 'In', values: ['test'] }));
    });
    it('should allow kubernetes subdomains exceptions', () => {
      for (const domain of ['kubernetes.io', 'k8s.io']) {
        ok(reqs({ key: `subdomain.${domain}/test`, operator: 'In', values: ['test'] }));
      }
    });
    it('should allow well known label exceptions', () => {
      for (const key of [
        ZONE,
        'topology.kubernetes.io/region',
        'node.kubernetes.io/instance-type',
        'kubernetes.io/arch',
        'kubernetes.io/os',
        'node.kubernetes.io/windows-build',
      ]) {
        ok(reqs({ key, operator: 'In', values: ['test'] }));
      }
    });
    it('should allow non-empty set after removing overlapped value', () =>
      ok(
        reqs(
          { key: ZONE, operator: 'In', values: ['test', 'foo'] },
          { key: ZONE, operator: 'NotIn', values: ['test', 'bar'] },
        ),
      ));
    it('should allow empty requirements', () => ok(reqs({ key: 'test', operator: 'Exists' })));
    it('should fail with invalid GT or LT values', () => {
      for (const operator of ['Gt', 'Lt']) {
        for (const values of [[], ['1', '2'], ['a'], ['-1']]) refused(reqs({ key: ZONE, operator, values }));
      }
    });
    it('should fail with invalid GTE or LTE values', () => {
      for (const operator of ['Gte', 'Lte']) {
        for (const values of [[], ['1', '2'], ['a'], ['-1']]) refused(reqs({ key: ZONE, operator, values }));
      }
    });
  });

  it('shout not be able to set both price and priceAdjustment', () => {
    expect(problems({ price: '0.432', priceAdjustment: '+10%' })).toEqual([
      "spec: cannot set both 'price' and 'priceAdjustment'",
    ]);
  });

  const INVALID = [
    '+42',
    '.5',
    '42.',
    '42%',
    '3,14',
    '1e10',
    '0x42',
    'forty-two',
    '42a',
    '42 ',
    ' 42',
    '42.0.0',
    '-',
    '.',
  ];

  describe('priceAdjustment', () => {
    // Karpenter's table under this Context sets `price`, not `priceAdjustment` (so "+42" is refused there); it is
    // kept as written, and the adjustment-only entries follow.
    it.each([...INVALID, '-100.0%', '-101.1%', '-129'])('Invalid Input: %j', (input) => refused({ price: input }));
    it.each([
      '.5',
      '42.',
      '42%',
      '3,14',
      '1e10',
      '0x42',
      'forty-two',
      '42a',
      '42 ',
      ' 42',
      '42.0.0',
      '-',
      '.',
      '-101.1%',
    ])('Invalid Input as a priceAdjustment: %j', (input) => refused({ priceAdjustment: input }));
    it('should not allow an unsigned priceAdjustment percentage', () => refused({ priceAdjustment: '1%' }));
    it('should not allow an unsigned priceAdjustment integer', () => refused({ priceAdjustment: '1' }));
    it('should not allow an unsigned priceAdjustment float', () => refused({ priceAdjustment: '1.3' }));
    it('should allow positive percentage value for priceAdjustment field', () => ok({ priceAdjustment: '+1%' }));
    it('should allow negative percentage less then 0%', () => ok({ priceAdjustment: '-1%' }));
    it('should allow negative percentage -100%', () => ok({ priceAdjustment: '-100%' }));
    it('should allow positive percentage greater then 100%', () => ok({ priceAdjustment: '+100.102%' }));
    it('should allow positive percentage greater then 100% with an integer', () => ok({ priceAdjustment: '+298%' }));
    it('should allow positive integer value', () => ok({ priceAdjustment: '+43' }));
    it('should allow negative integer value', () => ok({ priceAdjustment: '-43' }));
    it('should allow positive float value', () => ok({ priceAdjustment: '+34.43' }));
    it('should allow negative float value', () => ok({ priceAdjustment: '-34.43' }));
  });

  describe('price', () => {
    it.each([...INVALID, '-.42'])('Invalid Input: %j', (input) => refused({ price: input }));
    it('should allow integer value', () => ok({ price: '43' }));
    it('should allow float value', () => ok({ price: '34.43' }));
  });

  describe('Capacity', () => {
    it('should allow custom resources', () => ok({ capacity: { 'smarter-devices/fuse': '1' } }));
    it('should not allow cpu resources override', () => refused({ capacity: { cpu: '1' } }));
    it('should not allow memory resources override', () => refused({ capacity: { memory: '34Gi' } }));
    it('should not allow pod resources override', () => refused({ capacity: { pods: '324' } }));
    it('should not allow ephemeral-storage resources override (the CEL rule lists it too)', () =>
      refused({ capacity: { 'ephemeral-storage': '10Gi' } }));
  });
});

describe('NodeOverlay', () => {
  const named = (name: string, weight?: number): NodeOverlay => ({
    apiVersion: 'karpenter.sh/v1alpha1',
    kind: 'NodeOverlay',
    metadata: { name },
    spec: { ...(weight === undefined ? {} : { weight }), requirements: [{ key: 'test', operator: 'Exists' }] },
  });

  describe('OrderByWeight', () => {
    it('should order the NodeOverlay by weight', () => {
      // Karpenter draws 10 random weights in 1..100; a fixed spread with repeats covers the same.
      const weights = [37, 1, 100, 37, 64, 2, 99, 1, 50, 100];
      const ordered = weights.map((w, i) => named(`overlay-${i}`, w)).sort(byOverlayPrecedence);
      const seen = ordered.map((o) => o.spec.weight ?? 0);
      expect(seen).toEqual([...weights].sort((a, b) => b - a));
    });
    it('should order the NodeOverlay by name when the weights are the same', () => {
      const names = ['kiwi', 'apple', 'zebra', 'mango', 'banana', 'cherry', 'yak', 'lime', 'fig', 'date'];
      const ordered = names.map((n) => named(n, 10)).sort(byOverlayPrecedence);
      // Later in the alphabet first: each name is below the one before it.
      expect(ordered.map((o) => o.metadata.name)).toEqual([...names].sort().reverse());
    });
  });
});
