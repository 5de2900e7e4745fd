// Interruptible capacity reservations (Karpenter v1.10; docs/aws.md, Capacity reservations), named after
// aws/karpenter-provider-aws's tests: pkg/controllers/nodeclass/capacityreservation_test.go (discovery),
// pkg/providers/instance/filter/filter_test.go (one reservation kind per launch, their priority),
// pkg/cloudprovider/suite_test.go (the launch), pkg/controllers/interruption/suite_test.go (the warning), and
// test/suites/scheduling "Interruptible Capacity Reservations". EC2 is aws-sdk-client-mock (testkit/aws/fake-aws.ts)
// where DescribeCapacityReservations is needed, because moto 5.2.1 does not implement it.
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeCapacityReservationsCommand,
} from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LabelCapacityReservationId,
  LabelCapacityReservationInterruptible,
  LabelCapacityType,
} from '../../../shared/api/labels';
import { fromEc2 } from '../../../shared/aws/ec2/capacity-reservations';
import { type FleetOverride, oneReservationKind } from '../../../shared/aws/ec2/fleet';
import { reservationStatuses, withReservedOfferings } from '../../../shared/catalog/reservations';
import { handleInterruption } from '../../../shared/controllers/interruption';
import { type FakeAws, fakeAws } from '../../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../../testkit/aws/provider';
import { makePod } from '../../../testkit/bed';
import { ec2NodeClass, nodeClaim, nodePool, pod } from '../../../testkit/builders';
import { makeInstanceType } from '../../../testkit/instance-types';
import { reservation, reservationBed } from '../../../testkit/reservations';
import { run } from '../../../testkit/solve';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const ec2Reservation = (id: string, interruptible?: boolean) => ({
  CapacityReservationId: id,
  InstanceType: 'm5.large',
  AvailabilityZone: 'us-east-1a',
  OwnerId: '012345678901',
  InstanceMatchCriteria: 'targeted' as const,
  ReservationType: 'default' as const,
  AvailableInstanceCount: 2,
  TotalInstanceCount: 2,
  State: 'active' as const,
  Tags: [{ Key: 'team', Value: 'ml' }],
  ...(interruptible === undefined ? {} : { Interruptible: interruptible }),
});

describe('NodeClass Capacity Reservation Reconciler', () => {
  it('should discover interruptible reservations', () => {
    const r = fromEc2(ec2Reservation('cr-i0a1', true));
    expect(r?.interruptible).toBe(true);
    expect(reservationStatuses(r ? [r] : [], NOW)).toEqual([
      expect.objectContaining({ id: 'cr-i0a1', interruptible: true, state: 'active' }),
    ]);
  });

  it('should handle capacity reservations with nil Interruptible field', () => {
    const r = fromEc2(ec2Reservation('cr-0a1'));
    expect(r).toBeDefined();
    // Published as false, as Karpenter's status always carries the field.
    expect(reservationStatuses(r ? [r] : [], NOW)).toEqual([expect.objectContaining({ interruptible: false })]);
  });
});

const override = (id: string, o: { type?: 'default' | 'capacity-block'; interruptible?: boolean; price?: number }) => ({
  instanceType: `m5.${id}`,
  zone: 'us-east-1a',
  subnetId: 'subnet-a',
  amiId: 'ami-1',
  price: o.price ?? 5,
  reservation: { id, type: o.type ?? 'default', capacity: 1, ...(o.interruptible ? { interruptible: true } : {}) },
});

describe('CapacityReservationTypeFilter', () => {
  const kinds = (out: FleetOverride[]) => out.map((o) => o.reservation?.id);
  it('should break ties by priority: default and interruptible default', () => {
    expect(kinds(oneReservationKind([override('cr-i1', { interruptible: true }), override('cr-d1', {})]))).toEqual([
      'cr-d1',
    ]);
  });
  it('should break ties by priority: capacity-block and interruptible default', () => {
    const out = oneReservationKind([
      override('cr-i1', { interruptible: true }),
      override('cr-b1', { type: 'capacity-block' }),
    ]);
    expect(kinds(out)).toEqual(['cr-b1']);
  });
  it('should remove offerings which aren’t the selected capacity reservation type: default interruptible', () => {
    const out = oneReservationKind([
      override('cr-i1', { interruptible: true }),
      override('cr-i2', { interruptible: true }),
    ]);
    expect(kinds(out)).toEqual(['cr-i1', 'cr-i2']);
    expect(out.every((o) => o.reservation?.interruptible)).toBe(true);
  });
  it('plans a claim into a non-interruptible reservation before an interruptible one, as the launch picks', () => {
    const m5 = makeInstanceType('m5.large', { onDemand: 0.096, zones: ['us-east-1a'] });
    const types = withReservedOfferings(
      [m5],
      [reservation({ id: 'cr-i1', interruptible: true }), reservation({ id: 'cr-d1' })],
      NOW,
    );
    const pool = nodePool({ requirements: [{ key: LabelCapacityType, operator: 'In', values: ['reserved'] }] });
    const r = run({ nodePools: [pool], types, pods: [pod({ name: 'p', cpu: '1' }), pod({ name: 'q', cpu: '1500m' })] });
    expect(
      r.nodeClaims.map((c) => [c.labels[LabelCapacityReservationId], c.labels[LabelCapacityReservationInterruptible]]),
    ).toEqual([
      ['cr-d1', 'false'],
      ['cr-i1', 'true'],
    ]);
  });
});

describe('CloudProvider Create: capacity reservations', () => {
  let aws: FakeAws;
  beforeEach(() => {
    aws = fakeAws();
  });
  afterEach(() => aws.restore());

  it('when the capacity reservation type is default interruptible: launches with the interruptible market type', async () => {
    aws.ec2
      .on(DescribeCapacityReservationsCommand)
      .resolves({ CapacityReservations: [ec2Reservation('cr-i0a1', true)] });
    const m5 = makeInstanceType('m5.large', { onDemand: 0.096, zones: ['us-east-1a'] });
    const p = fakeAwsProvider(aws, { instanceTypes: () => [m5], clock: { now: () => NOW } });
    const nodeClass = ec2NodeClass({ capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] });
    const types = await p.getInstanceTypes(nodeClass);
    expect(types[0]?.offerings.find((o) => o.capacityType === 'reserved')?.reservation?.interruptible).toBe(true);
    const claim = nodeClaim({
      name: 'default-i1',
      requirements: [{ key: LabelCapacityType, operator: 'In', values: ['reserved'] }],
    });
    const instance = await p.create({ claim, nodePool: nodePool(), nodeClass, instanceTypes: types });
    expect(instance.capacityReservation).toEqual({ id: 'cr-i0a1', type: 'default', interruptible: true });
    const lt = aws.ec2.commandCalls(CreateLaunchTemplateCommand)[0]?.args[0].input;
    expect(lt?.LaunchTemplateData?.InstanceMarketOptions).toEqual({ MarketType: 'interruptible-capacity-reservation' });
    expect(lt?.LaunchTemplateData?.CapacityReservationSpecification).toEqual({
      CapacityReservationPreference: 'capacity-reservations-only',
      CapacityReservationTarget: { CapacityReservationId: 'cr-i0a1' },
    });
    const fleet = aws.ec2.commandCalls(CreateFleetCommand)[0]?.args[0].input;
    expect(fleet?.TargetCapacitySpecification?.DefaultTargetCapacityType).toBe('reserved-capacity');
    expect(fleet?.ReservedCapacityOptions).toEqual({ ReservationTypes: ['interruptible-capacity-reservation'] });
    expect(fleet?.OnDemandOptions).toBeUndefined();
  });
});

async function interruptibleNode(interruptible: boolean) {
  const t = reservationBed(
    ['reserved', 'on-demand'],
    [reservation({ id: 'cr-0a1', interruptible, totalInstanceCount: 1 })],
    ['m5.large'],
  );
  t.cluster.addPod(makePod('trainer', { cpu: '1' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.instanceId || !claim.nodeName) throw new Error('no initialized claim');
  return { t, claim, instanceId: claim.instanceId, nodeName: claim.nodeName };
}

describe('Interruptible Capacity Reservations (scheduling)', () => {
  for (const interruptible of [true, false]) {
    it(`${interruptible ? 'interruptible' : 'non-interruptible'}: labels the node karpenter.k8s.aws/capacity-reservation-interruptible=${interruptible}`, async () => {
      const { t, claim, nodeName } = await interruptibleNode(interruptible);
      expect(claim.capacityReservation).toMatchObject({
        id: 'cr-0a1',
        ...(interruptible ? { interruptible: true } : {}),
      });
      const node = (await t.cluster.listNodes()).find((n) => n.metadata.name === nodeName);
      expect(node?.metadata.labels).toMatchObject({
        [LabelCapacityType]: 'reserved',
        [LabelCapacityReservationId]: 'cr-0a1',
        [LabelCapacityReservationInterruptible]: String(interruptible),
      });
    });
  }

  it('keeps a pod that selects non-interruptible capacity off an interruptible reservation', () => {
    const m5 = makeInstanceType('m5.large', { onDemand: 0.096, zones: ['us-east-1a'] });
    const types = withReservedOfferings([m5], [reservation({ id: 'cr-i1', interruptible: true })], NOW);
    const pool = nodePool({
      requirements: [{ key: LabelCapacityType, operator: 'In', values: ['reserved', 'on-demand'] }],
    });
    const picky = pod({
      name: 'p',
      cpu: '1',
      nodeSelector: { [LabelCapacityReservationInterruptible]: 'false' },
    });
    const r = run({ nodePools: [pool], types, pods: [picky] });
    expect(r.nodeClaims).toEqual([]);
    expect(r.unschedulable.map((u) => u.pod.metadata.name)).toEqual(['p']);
  });
});

describe('Interruption: capacity reservation interruption warning', () => {
  it('should delete the NodeClaim when receiving a capacity reservation interruption warning', async () => {
    const { t, claim, instanceId, nodeName } = await interruptibleNode(true);
    const deadline = new Date(t.clock.now() + 120_000).toISOString();
    const result = await handleInterruption(t.deps, {
      kind: 'CapacityReservationInterruption',
      instanceIds: [instanceId],
      deadline,
      eventId: 'evt-cr',
      at: new Date(t.clock.now()).toISOString(),
    });
    expect(result.terminating).toEqual([claim.name]);
    expect(await t.store.get(claim.name)).toMatchObject({
      state: 'Draining',
      disruption: { cause: 'Interrupted', detail: 'capacity reservation interruption warning' },
      drain: { deadline },
    });
    const warnings = t.cluster.events.filter((e) => e.reason === 'CapacityReservationInstanceInterrupted');
    expect(warnings.map((e) => [e.involved.kind, e.involved.name, e.type, e.message])).toEqual([
      ['NodeClaim', claim.name, 'Warning', 'Capacity Reservation interruption warning was triggered'],
      ['Node', nodeName, 'Warning', 'Capacity Reservation interruption warning was triggered'],
    ]);
  });

  it('should mark the capacity reservation as unavailable when getting an interruption warning', async () => {
    const { t, instanceId } = await interruptibleNode(true);
    await handleInterruption(t.deps, {
      kind: 'CapacityReservationInterruption',
      instanceIds: [instanceId],
      eventId: 'evt-cr',
      at: new Date(t.clock.now()).toISOString(),
    });
    expect(await t.store.listUnavailable(t.clock.now())).toEqual([
      expect.objectContaining({
        instanceType: 'm5.large',
        capacityType: 'reserved',
        reservationId: 'cr-0a1',
        reason: 'CapacityReservationInterruption',
      }),
    ]);
    // The replacement goes to on-demand: the reclaimed reservation is not launched into again.
    const [replacement] = await t.store.list({ states: ['Launched'] });
    expect(replacement?.capacityType).toBe('on-demand');
  });

  it('should not return an error when deleting a nodeClaim that is already deleted', async () => {
    const { t } = await interruptibleNode(true);
    const result = await handleInterruption(t.deps, {
      kind: 'CapacityReservationInterruption',
      instanceIds: ['i-0123456789abcdef0'],
      eventId: 'evt-cr',
      at: new Date(t.clock.now()).toISOString(),
    });
    expect(result).toMatchObject({ terminating: [], ignored: ['i-0123456789abcdef0'] });
  });
});
