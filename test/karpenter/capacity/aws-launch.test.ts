// aws/karpenter-provider-aws pkg/providers/instance/suite_test.go, pkg/providers/capacityreservation/suite_test.go and
// pkg/cloudprovider/suite_test.go "Capacity Reservations", on the AWS CloudProvider. aws-sdk-client-mock
// (testkit/aws/fake-aws.ts), because moto 5.2.1 does not implement DescribeCapacityReservations.
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeCapacityReservationsCommand,
  type DescribeCapacityReservationsCommandInput,
} from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LabelCapacityType } from '../../../shared/api/labels';
import { reservationQuery } from '../../../shared/aws/ec2/capacity-reservations';
import { InsufficientCapacityError } from '../../../shared/errors';
import { type FakeAws, fakeAws } from '../../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../../testkit/aws/provider';
import { ec2NodeClass, nodeClaim, nodePool } from '../../../testkit/builders';
import { makeInstanceType } from '../../../testkit/instance-types';

let aws: FakeAws;
const now = Date.parse('2026-01-01T00:00:00Z');
const m5 = makeInstanceType('m5.large', { onDemand: 0.096, zones: ['us-east-1a'] });
const nodeClass = ec2NodeClass({ capacityReservationSelectorTerms: [{ tags: { team: 'ml' } }] });
const ec2Reservation = (
  id: string,
  o: { type?: 'default' | 'capacity-block'; available?: number; end?: string } = {},
) => ({
  CapacityReservationId: id,
  InstanceType: 'm5.large',
  AvailabilityZone: 'us-east-1a',
  OwnerId: '111122223333',
  InstanceMatchCriteria: 'targeted' as const,
  ReservationType: o.type ?? ('default' as const),
  AvailableInstanceCount: o.available ?? 2,
  TotalInstanceCount: 2,
  State: 'active' as const,
  Tags: [{ Key: 'team', Value: 'ml' }],
  ...(o.end ? { EndDate: new Date(o.end) } : {}),
});

const provider = () => fakeAwsProvider(aws, { instanceTypes: () => [m5], clock: { now: () => now } });
const reservedClaim = nodeClaim({
  name: 'default-r1',
  requirements: [{ key: LabelCapacityType, operator: 'In', values: ['reserved'] }],
});

beforeEach(() => {
  aws = fakeAws();
});
afterEach(() => aws.restore());

async function launchReserved(reservations: ReturnType<typeof ec2Reservation>[]) {
  aws.ec2.on(DescribeCapacityReservationsCommand).resolves({ CapacityReservations: reservations });
  const p = provider();
  const types = await p.getInstanceTypes(nodeClass);
  return {
    p,
    types,
    launch: () => p.create({ claim: reservedClaim, nodePool: nodePool(), nodeClass, instanceTypes: types }),
  };
}

describe('capacityreservation provider', () => {
  it("queries by id alone, or by tags ('*' as tag-key), instanceMatchCriteria and owner, only active reservations", () => {
    expect(reservationQuery({ id: 'cr-0a1' })).toEqual({
      CapacityReservationIds: ['cr-0a1'],
      Filters: [{ Name: 'state', Values: ['active'] }],
    });
    expect(reservationQuery({ tags: { team: 'ml', env: '*' }, ownerID: '111122223333' })).toEqual({
      Filters: [
        { Name: 'state', Values: ['active'] },
        { Name: 'owner-id', Values: ['111122223333'] },
        { Name: 'tag:team', Values: ['ml'] },
        { Name: 'tag-key', Values: ['env'] },
      ],
    });
    expect(reservationQuery({ instanceMatchCriteria: 'targeted', tags: { team: 'ml' } })).toEqual({
      Filters: [
        { Name: 'state', Values: ['active'] },
        { Name: 'tag:team', Values: ['ml'] },
        { Name: 'instance-match-criteria', Values: ['targeted'] },
      ],
    });
  });

  it('should add a reserved offering priced at on-demand / 10,000,000, available while the reservation has room', async () => {
    const { types } = await launchReserved([ec2Reservation('cr-0a1'), ec2Reservation('cr-0b2', { available: 0 })]);
    const reserved = types[0]?.offerings.filter((o) => o.capacityType === 'reserved');
    expect(reserved).toEqual([
      expect.objectContaining({ zone: 'us-east-1a', price: 0.096 / 10_000_000, available: true }),
      expect.objectContaining({ zone: 'us-east-1a', available: false }),
    ]);
    const call = aws.ec2.commandCalls(DescribeCapacityReservationsCommand)[0]?.args[0]
      .input as DescribeCapacityReservationsCommandInput;
    expect(call.Filters).toContainEqual({ Name: 'tag:team', Values: ['ml'] });
  });

  it('should decrement availability when reservation is marked as launched', async () => {
    const { p, launch } = await launchReserved([ec2Reservation('cr-0a1', { available: 1 })]);
    await launch();
    const after = await p.getInstanceTypes(nodeClass);
    expect(after[0]?.offerings.find((o) => o.capacityType === 'reserved')?.available).toBe(false);
  });
});

describe('instance provider: Capacity Reservations', () => {
  it('should launch into the reservation with a targeted launch template (capacity-reservations-only)', async () => {
    const { launch } = await launchReserved([ec2Reservation('cr-0a1')]);
    const instance = await launch();
    expect(instance).toMatchObject({
      capacityType: 'reserved',
      capacityReservation: { id: 'cr-0a1', type: 'default' },
    });
    const lt = aws.ec2.commandCalls(CreateLaunchTemplateCommand)[0]?.args[0].input;
    expect(lt?.LaunchTemplateData?.CapacityReservationSpecification).toEqual({
      CapacityReservationPreference: 'capacity-reservations-only',
      CapacityReservationTarget: { CapacityReservationId: 'cr-0a1' },
    });
    expect(lt?.LaunchTemplateData?.InstanceMarketOptions).toBeUndefined();
    const fleet = aws.ec2.commandCalls(CreateFleetCommand)[0]?.args[0].input;
    expect(fleet?.TargetCapacitySpecification?.DefaultTargetCapacityType).toBe('on-demand');
  });

  it('should launch a capacity block with the capacity-block market type and target capacity type', async () => {
    const { launch } = await launchReserved([
      ec2Reservation('cr-0c3', { type: 'capacity-block', end: '2026-01-01T06:00:00Z' }),
    ]);
    const instance = await launch();
    expect(instance.capacityReservation).toEqual({
      id: 'cr-0c3',
      type: 'capacity-block',
      endTime: '2026-01-01T06:00:00.000Z',
    });
    const lt = aws.ec2.commandCalls(CreateLaunchTemplateCommand)[0]?.args[0].input;
    expect(lt?.LaunchTemplateData?.InstanceMarketOptions).toEqual({ MarketType: 'capacity-block' });
    const fleet = aws.ec2.commandCalls(CreateFleetCommand)[0]?.args[0].input;
    expect(fleet?.TargetCapacitySpecification?.DefaultTargetCapacityType).toBe('capacity-block');
  });

  it('should return an ICE error when all attempted instance types return a ReservationCapacityExceeded error', async () => {
    const { p, launch } = await launchReserved([ec2Reservation('cr-0a1')]);
    aws.state.nextFleetErrors.push({ code: 'ReservationCapacityExceeded', message: 'no room in cr-0a1' });
    const err = await launch().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCapacityError);
    expect((err as InsufficientCapacityError).offerings).toEqual([
      {
        instanceType: 'm5.large',
        zone: 'us-east-1a',
        capacityType: 'reserved',
        reservationId: 'cr-0a1',
        reason: 'ReservationCapacityExceeded',
      },
    ]);
    // The reservation is marked unavailable until EC2 is asked again.
    const after = await p.getInstanceTypes(nodeClass);
    expect(after[0]?.offerings.find((o) => o.capacityType === 'reserved')?.available).toBe(false);
  });

  it('should not mark capacity reservations other than the refused one unavailable, nor on-demand', async () => {
    // Another container reads the refusal from the shared ICE cache (the store), with its own reservation cache.
    const reservations = [ec2Reservation('cr-0a1', { available: 2 }), ec2Reservation('cr-0b2', { available: 1 })];
    const { launch } = await launchReserved(reservations);
    aws.state.nextFleetErrors.push({ code: 'ReservationCapacityExceeded', message: 'no room in cr-0a1' });
    const err = (await launch().catch((e: unknown) => e)) as InsufficientCapacityError;
    expect(err.offerings.map((o) => o.reservationId)).toEqual(['cr-0a1']);
    const unavailable = err.offerings.map((o) => ({ ...o, expiresAt: now + 180_000 }));
    const other = fakeAwsProvider(aws, {
      instanceTypes: () => [m5],
      clock: { now: () => now },
      unavailable: async () => unavailable,
    });
    const offerings = (await other.getInstanceTypes(nodeClass))[0]?.offerings ?? [];
    expect(offerings.map((o) => [o.capacityType, o.reservation?.id, o.available])).toEqual([
      ['on-demand', undefined, true],
      ['reserved', 'cr-0a1', false],
      ['reserved', 'cr-0b2', true],
    ]);
  });

  it('should opt on-demand launches of a class that selects reservations out of open reservations', async () => {
    aws.ec2.on(DescribeCapacityReservationsCommand).resolves({ CapacityReservations: [] });
    const p = provider();
    const types = await p.getInstanceTypes(nodeClass);
    await p.create({
      claim: nodeClaim({ name: 'default-od1' }),
      nodePool: nodePool(),
      nodeClass,
      instanceTypes: types,
    });
    const lt = aws.ec2.commandCalls(CreateLaunchTemplateCommand)[0]?.args[0].input;
    expect(lt?.LaunchTemplateData?.CapacityReservationSpecification).toEqual({ CapacityReservationPreference: 'none' });
  });
});

describe('cloudprovider: Drift (Capacity Reservations)', () => {
  /** DescribeCapacityReservations as EC2 answers it: an id query gets that id, a tags query the tagged ones. */
  const answer = (reservations: ReturnType<typeof ec2Reservation>[]) =>
    aws.ec2.on(DescribeCapacityReservationsCommand).callsFake((input: DescribeCapacityReservationsCommandInput) => ({
      CapacityReservations: input.CapacityReservationIds
        ? reservations.filter((r) => input.CapacityReservationIds?.includes(r.CapacityReservationId))
        : reservations,
    }));
  let clock = now;
  const driftProvider = () => fakeAwsProvider(aws, { instanceTypes: () => [m5], clock: { now: () => clock } });

  async function launchedInto(reservations: ReturnType<typeof ec2Reservation>[]) {
    answer(reservations);
    const p = driftProvider();
    const types = await p.getInstanceTypes(nodeClass);
    const instance = await p.create({ claim: reservedClaim, nodePool: nodePool(), nodeClass, instanceTypes: types });
    return { p, claim: { ...reservedClaim, instanceId: instance.instanceId, state: 'Initialized' as const } };
  }

  it('should dynamically drift nodeclaims for capacity reservations', async () => {
    const { p, claim } = await launchedInto([ec2Reservation('cr-0a1'), ec2Reservation('cr-0b2')]);
    expect((await p.get(claim.instanceId))?.capacityReservation).toEqual({ id: 'cr-0a1', type: 'default' });
    expect(await p.isDrifted(claim, nodeClass)).toBeUndefined();
    // The class now selects only cr-0b2: the node, still in cr-0a1, drifts.
    const narrowed = ec2NodeClass({ capacityReservationSelectorTerms: [{ id: 'cr-0b2' }] });
    expect(await driftProvider().isDrifted(claim, narrowed)).toMatch(/^CapacityReservationDrift: .*cr-0a1/);
  });

  it('should not drift when capacity reservation falls back to on-demand', async () => {
    const { claim } = await launchedInto([ec2Reservation('cr-0a1')]);
    // The reservation is cancelled: EC2 no longer lists it, and the instance runs on outside it, as on-demand.
    answer([]);
    const instance = aws.state.instances.get(claim.instanceId);
    if (instance) delete instance.CapacityReservationId;
    clock = now + 2 * 60_000;
    const p = driftProvider();
    expect(await p.isDrifted(claim, nodeClass)).toBeUndefined();
    expect((await p.get(claim.instanceId))?.capacityType).toBe('on-demand');
  });
});
