// The capacity reservation examples of karpenter.sh (concepts/nodeclasses.md spec.capacityReservationSelectorTerms,
// tasks/odcrs.md), unchanged (test/fixtures/karpenter-examples/README.md). The pages show fragments: a `spec:` with
// the selector terms, or a bare `capacityReservationSelectorTerms:` or `requirements:` list; each is set, as text,
// inside an otherwise complete EC2NodeClass or NodePool. The simulated account holds CapacityReservation documents
// (docs/scenarios.md, Capacity reservations); every reservation holds one m5.large and every pod fills one, so the
// reservations used show exactly which ones the terms select, and the pod left over shows the fallback.
import { beforeAll, describe, expect, it } from 'vitest';
import { LabelCapacityReservationId } from '../../../shared/api/labels';
import {
  docsExample,
  exampleText,
  indent,
  loadSimulator,
  podsYaml,
  scratch,
  simulateFiles,
} from '../../../testkit/karpenter-examples';

const write = scratch('examples-odcr');
const block = (path: string) => exampleText(docsExample(path));

const CLASS_HEAD = 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\n';
const CLASS_REST = `  role: KarpenterNodeRole-test
  amiSelectorTerms: [{ alias: al2023@latest }]
  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: test } }]
`;
/** An EC2NodeClass around a page's `spec:` fragment (its other spec fields follow at the same indent). */
const classAroundSpec = (fragment: string) => `${CLASS_HEAD}${fragment}${CLASS_REST}`;
/** An EC2NodeClass around a bare `capacityReservationSelectorTerms:` fragment. */
const classAroundTerms = (fragment: string) => `${CLASS_HEAD}spec:\n${indent(fragment, 2)}${CLASS_REST}`;
/** A NodePool around a bare `requirements:` fragment. */
const poolAroundRequirements = (fragment: string) => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: reserved
spec:
  template:
    spec:
      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, name: default }
${indent(fragment, 6)}`;

interface Reservation {
  id: string;
  tags?: Record<string, string>;
  instanceMatchCriteria?: 'open' | 'targeted';
}
const reservationsYaml = (rs: Reservation[]) =>
  rs
    .map((r) =>
      JSON.stringify({
        apiVersion: 'karpless.dev/v1alpha1',
        kind: 'CapacityReservation',
        metadata: { name: r.id },
        spec: { instanceType: 'm5.large', availabilityZone: 'us-east-1a', instanceCount: 1, ...r },
      }),
    )
    .join('\n---\n');

const RESERVED_THEN_ON_DEMAND = poolAroundRequirements(block('tasks/odcrs/reserved-then-on-demand'));

/** Plans `pods` one-node pods against the class, pool and reservations; the capacity types and reservations used. */
async function plan(name: string, nodeClass: string, reservations: Reservation[], pods: number, pool?: string) {
  const files = [
    write(`${name}-class.yaml`, nodeClass),
    write(`${name}-pool.yaml`, pool ?? RESERVED_THEN_ON_DEMAND),
    write(`${name}-reservations.yaml`, reservationsYaml(reservations)),
    write(`${name}-pods.yaml`, podsYaml([{ name: 'trainer', count: pods, requests: { cpu: '1500m', memory: '2Gi' } }])),
  ];
  const r = await simulateFiles(files);
  expect(r.code, r.stderr).toBe(0);
  const claims = r.out?.nodeClaims ?? [];
  expect(r.out?.unschedulable).toEqual([]);
  return {
    capacityTypes: claims.map((c) => c.capacityType).sort(),
    reservations: claims.flatMap((c) => c.labels[LabelCapacityReservationId] ?? []).sort(),
  };
}

beforeAll(loadSimulator);

describe('karpenter.sh tasks/odcrs.md, unchanged', () => {
  const terms = classAroundTerms(block('tasks/odcrs/capacity-reservation-selector-terms'));
  const account = [{ id: 'cr-56fac701cc1951b03' }, { id: 'cr-0a1', tags: { application: 'foobar' } }, { id: 'cr-0b2' }];

  it('selects the reservations tagged application: foobar and cr-56fac701cc1951b03, then falls back to on-demand', async () => {
    expect(await plan('odcr', terms, account, 3)).toEqual({
      capacityTypes: ['on-demand', 'reserved', 'reserved'],
      reservations: ['cr-0a1', 'cr-56fac701cc1951b03'],
    });
  });

  it("a pool allowing ['reserved', 'on-demand', 'spot'] prefers the reservations, then spot", async () => {
    const pool = poolAroundRequirements(block('tasks/odcrs/reserved-on-demand-spot'));
    expect(await plan('odcr-spot', terms, account, 3, pool)).toEqual({
      capacityTypes: ['reserved', 'reserved', 'spot'],
      reservations: ['cr-0a1', 'cr-56fac701cc1951b03'],
    });
  });
});

describe('karpenter.sh concepts/nodeclasses.md spec.capacityReservationSelectorTerms, unchanged', () => {
  const nodeclasses = (name: string) => classAroundSpec(block(`concepts/nodeclasses/${name}`));

  it('by id: cr-123 and cr-456, not cr-789', async () => {
    const account = [{ id: 'cr-123' }, { id: 'cr-456' }, { id: 'cr-789' }];
    expect(await plan('by-id', nodeclasses('capacity-reservations-by-id'), account, 3)).toEqual({
      capacityTypes: ['on-demand', 'reserved', 'reserved'],
      reservations: ['cr-123', 'cr-456'],
    });
  });

  it('by tags: both key1: foo and key2: bar, or key3: foobar', async () => {
    const account: Reservation[] = [
      { id: 'cr-0a1', tags: { key1: 'foo', key2: 'bar' } },
      { id: 'cr-0b2', tags: { key3: 'foobar' } },
      { id: 'cr-0c3', tags: { key1: 'foo' } },
    ];
    expect(await plan('by-tags', nodeclasses('capacity-reservations-by-tags'), account, 3)).toEqual({
      capacityTypes: ['on-demand', 'reserved', 'reserved'],
      reservations: ['cr-0a1', 'cr-0b2'],
    });
  });

  it('by instance match criteria: the open reservations only', async () => {
    const account: Reservation[] = [
      { id: 'cr-0a1', instanceMatchCriteria: 'open' },
      { id: 'cr-0b2', instanceMatchCriteria: 'targeted' },
    ];
    expect(await plan('open', nodeclasses('capacity-reservations-open'), account, 2)).toEqual({
      capacityTypes: ['on-demand', 'reserved'],
      reservations: ['cr-0a1'],
    });
  });

  it('by instance match criteria and tags: targeted reservations tagged key: foo', async () => {
    const account: Reservation[] = [
      { id: 'cr-0a1', instanceMatchCriteria: 'targeted', tags: { key: 'foo' } },
      { id: 'cr-0b2', instanceMatchCriteria: 'targeted', tags: { key: 'bar' } },
      { id: 'cr-0c3', instanceMatchCriteria: 'open', tags: { key: 'foo' } },
    ];
    expect(await plan('targeted', nodeclasses('capacity-reservations-targeted-with-tags'), account, 2)).toEqual({
      capacityTypes: ['on-demand', 'reserved'],
      reservations: ['cr-0a1'],
    });
  });

  it('by tags and owner ID: rejected, because YAML reads the unquoted ownerID 012345678901 as a number', async () => {
    // Kubernetes' YAML reader turns it into a number too, which the CRD's string type rejects.
    const path = write('owner.yaml', nodeclasses('capacity-reservations-by-tags-and-owner'));
    const r = await simulateFiles([path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'owner.yaml#1 EC2NodeClass/default: spec.capacityReservationSelectorTerms[0].ownerID: must be a string, got 12345678901',
    );
  });

  it("the page's reference EC2NodeClass: rejected for what Karpenter's CRDs reject, and nothing else", async () => {
    const r = await simulateFiles([docsExample('concepts/nodeclasses/ec2nodeclass-reference')]);
    expect(r.code).toBe(2);
    const problems = r.stderr
      .trim()
      .split('\n')
      .map((l) => l.slice(l.indexOf('ec2nodeclass-reference.yaml')));
    expect(problems).toEqual([
      // The NodePool shown above the class has no requirements, which the NodePool CRD requires.
      'ec2nodeclass-reference.yaml#1 NodePool/default: spec.template.spec.requirements: required',
      // It sets both role and instanceProfile: "must specify exactly one of ['role', 'instanceProfile']".
      'ec2nodeclass-reference.yaml#2 EC2NodeClass/default: spec: must specify exactly one of role, instanceProfile (both are set)',
    ]);
  });
});
