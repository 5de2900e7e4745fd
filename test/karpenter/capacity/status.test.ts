// status.capacityReservations as Karpenter's nodeclass capacity reservation reconciler publishes it
// (pkg/controllers/nodeclass/capacityreservation_test.go), written by the real status writer (publishStatus) through
// KubeClusterApi to the fake Kubernetes API (test/fake-kube-api) and read back as kubectl would. EC2 is
// aws-sdk-client-mock (testkit/aws/fake-aws.ts), because moto 5.2.1 does not implement DescribeCapacityReservations.
import { DescribeCapacityReservationsCommand } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishStatus } from '../../../shared/controllers/status';
import { type FakeAws, fakeAws } from '../../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../../testkit/aws/provider';
import { createTestbed } from '../../../testkit/bed';
import { ec2NodeClass } from '../../../testkit/builders';
import { useKubeClusterBed } from '../../../testkit/kube-cluster-bed';

const bed = useKubeClusterBed();
let aws: FakeAws;
const now = Date.parse('2026-01-01T00:00:00Z');
beforeEach(() => {
  aws = fakeAws();
});
afterEach(() => aws.restore());

const ec2Reservation = (id: string, o: { type?: 'default' | 'capacity-block'; end?: string } = {}) => ({
  CapacityReservationId: id,
  InstanceType: 'm5.large',
  AvailabilityZone: 'us-east-1a',
  OwnerId: '012345678901',
  InstanceMatchCriteria: 'targeted' as const,
  ReservationType: o.type ?? ('default' as const),
  AvailableInstanceCount: 1,
  TotalInstanceCount: 2,
  State: 'active' as const,
  Tags: [{ Key: 'team', Value: 'ml' }],
  ...(o.end ? { EndDate: new Date(o.end) } : {}),
});

async function published(reservations: ReturnType<typeof ec2Reservation>[]) {
  aws.ec2.on(DescribeCapacityReservationsCommand).resolves({ CapacityReservations: reservations });
  const nodeClass = ec2NodeClass({ capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] });
  bed.api.put('ec2nodeclasses', { ...nodeClass, metadata: { ...nodeClass.metadata, generation: 1 } });
  const t = createTestbed();
  const clock = { now: () => now };
  const deps = { ...t.deps, clock, kube: bed.cluster, cloud: fakeAwsProvider(aws, { clock }) };
  const result = await publishStatus(deps);
  expect(result.failed).toEqual([]);
  const [stored] = bed.api.list('ec2nodeclasses') as { status?: Record<string, unknown> }[];
  return stored?.status;
}

describe('NodeClass Capacity Reservation Reconciler, through the status writer and the API server', () => {
  it('should resolve capacity reservations by tags, publishing every field Karpenter publishes, sorted by id', async () => {
    const status = await published([
      ec2Reservation('cr-0b2', { type: 'capacity-block', end: '2026-01-01T06:00:00Z' }),
      ec2Reservation('cr-0a1'),
    ]);
    expect(status?.capacityReservations).toEqual([
      {
        id: 'cr-0a1',
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        ownerID: '012345678901',
        instanceMatchCriteria: 'targeted',
        reservationType: 'default',
        state: 'active',
        interruptible: false,
      },
      {
        id: 'cr-0b2',
        instanceType: 'm5.large',
        availabilityZone: 'us-east-1a',
        ownerID: '012345678901',
        instanceMatchCriteria: 'targeted',
        reservationType: 'capacity-block',
        state: 'active',
        endTime: '2026-01-01T06:00:00.000Z',
        interruptible: false,
      },
    ]);
    expect(status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'CapacityReservationsReady', status: 'True' }),
    );
  });

  it('should mark capacity blocks as expiring 40 minutes prior to their endDate', async () => {
    const status = await published([ec2Reservation('cr-0b2', { type: 'capacity-block', end: '2026-01-01T00:30:00Z' })]);
    expect(status?.capacityReservations).toEqual([expect.objectContaining({ id: 'cr-0b2', state: 'expiring' })]);
  });

  it('should exclude expired capacity reservations', async () => {
    const status = await published([ec2Reservation('cr-0c3', { end: '2025-12-31T23:00:00Z' })]);
    expect(status?.capacityReservations ?? []).toEqual([]);
  });
});
