// Capacity reservations, after aws/karpenter-provider-aws's cases (pkg/cloudprovider/suite_test.go and
// pkg/providers/instance/suite_test.go "Capacity Reservations", pkg/controllers/nodeclass/capacityreservation_test.go,
// pkg/controllers/capacityreservation/expiration/suite_test.go) and kubernetes-sigs/karpenter's reservation manager,
// on the control plane over the simulated cloud (docs/aws.md, Capacity reservations).
import { describe, expect, it } from 'vitest';
import type { EC2NodeClass } from '../../../shared/api/karpenter';
import {
  LabelCapacityReservationId,
  LabelCapacityReservationType,
  LabelCapacityType,
} from '../../../shared/api/labels';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import { reservationStatuses, selectReservations } from '../../../shared/catalog/reservations';
import { drainExpiringCapacityBlocks } from '../../../shared/controllers/capacity-blocks';
import { makePod, sweepDrift } from '../../../testkit/bed';
import { reservation, reservationBed } from '../../../testkit/reservations';

const MINUTE = 60_000;
/** 1500m: one pod fills an m5.large or c5.large (2 vCPU), so each pod needs its own node. */
const pods = (n: number) => Array.from({ length: n }, (_, i) => makePod(`web-${i}`, { cpu: '1500m' }));
const live = async (t: ReturnType<typeof reservationBed>) =>
  (await t.store.list()).filter((c) => c.state !== 'Terminated' && c.state !== 'Failed');

describe('Capacity Reservations: provisioning', () => {
  it('should launch into a capacity reservation while it has room, labelling the node with its id and type', async () => {
    const t = reservationBed(['reserved', 'on-demand'], [reservation({ id: 'cr-0a1', totalInstanceCount: 2 })]);
    t.cluster.load(pods(2));
    await t.settle(2 * MINUTE);
    const claims = await live(t);
    expect(claims.map((c) => [c.capacityType, c.instanceType, c.capacityReservation?.id])).toEqual([
      ['reserved', 'm5.large', 'cr-0a1'],
      ['reserved', 'm5.large', 'cr-0a1'],
    ]);
    const nodes = await t.cluster.listNodes();
    expect(nodes.map((n) => n.metadata.labels?.[LabelCapacityReservationId])).toEqual(['cr-0a1', 'cr-0a1']);
    expect(nodes.map((n) => n.metadata.labels?.[LabelCapacityReservationType])).toEqual(['default', 'default']);
    expect(nodes.map((n) => n.metadata.labels?.[LabelCapacityType])).toEqual(['reserved', 'reserved']);
  });

  it('should fall back to on-demand once the reservation is full (the reservation manager never over-reserves)', async () => {
    const t = reservationBed(['reserved', 'on-demand'], [reservation({ id: 'cr-0a1', totalInstanceCount: 2 })]);
    t.cluster.load(pods(4));
    await t.settle(2 * MINUTE);
    const byType = (await live(t)).map((c) => c.capacityType).sort();
    expect(byType).toEqual(['on-demand', 'on-demand', 'reserved', 'reserved']);
    expect(t.cloud.liveReservations()[0]?.availableInstanceCount).toBe(0);
  });

  it('should leave pods pending when the pool allows only reserved and every reservation is full', async () => {
    const t = reservationBed(['reserved'], [reservation({ id: 'cr-0a1', totalInstanceCount: 1 })]);
    t.cluster.load(pods(2));
    await t.settle(2 * MINUTE);
    expect((await live(t)).map((c) => c.capacityType)).toEqual(['reserved']);
    expect((await t.cluster.listPendingPods()).length).toBe(1);
  });

  it('should not use a reservation the EC2NodeClass does not select', async () => {
    const t = reservationBed(['reserved', 'on-demand'], []);
    t.cloud.addReservations([reservation({ id: 'cr-0b2', tags: { team: 'other' } })]);
    t.cluster.load(pods(1));
    await t.settle(2 * MINUTE);
    expect((await live(t)).map((c) => c.capacityType)).toEqual(['on-demand']);
  });

  it('should return an ICE error when all attempted instance types return a ReservationCapacityExceeded error, and fall back', async () => {
    const t = reservationBed(['reserved', 'on-demand'], [reservation({ id: 'cr-0a1', totalInstanceCount: 1 })]);
    t.cloud.injectInsufficientCapacity({ instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'reserved' });
    t.cluster.load(pods(1));
    await t.settle(2 * MINUTE);
    expect((await live(t)).map((c) => c.capacityType)).toEqual(['on-demand']);
    const refused = await t.store.listUnavailable(t.clock.now());
    expect(refused).toContainEqual(
      expect.objectContaining({
        instanceType: 'm5.large',
        capacityType: 'reserved',
        reason: 'ReservationCapacityExceeded',
        reservationId: 'cr-0a1',
      }),
    );
  });

  it('should mark only the reservation that ran out unavailable, not another reservation of the type and zone', async () => {
    // cr-0a1 has the most room, so the plan picks it; EC2 refuses it, and the re-plan uses cr-0b2, not on-demand.
    const t = reservationBed(
      ['reserved', 'on-demand'],
      [reservation({ id: 'cr-0a1', totalInstanceCount: 2 }), reservation({ id: 'cr-0b2', totalInstanceCount: 1 })],
    );
    t.cloud.injectInsufficientCapacity({
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'reserved',
      reservationId: 'cr-0a1',
    });
    t.cluster.load(pods(1));
    await t.settle(2 * MINUTE);
    expect((await live(t)).map((c) => [c.capacityType, c.capacityReservation?.id])).toEqual([['reserved', 'cr-0b2']]);
    const refused = await t.store.listUnavailable(t.clock.now());
    expect(refused.map((u) => [u.capacityType, u.reservationId])).toEqual([['reserved', 'cr-0a1']]);
  });

  it('should keep reserved offerings when on-demand of the type and zone is refused', async () => {
    const t = reservationBed(['reserved', 'on-demand'], [reservation({ id: 'cr-0a1', totalInstanceCount: 1 })]);
    await t.store.markUnavailable({
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'on-demand',
      expiresAt: t.clock.now() + 3 * MINUTE,
    });
    t.cluster.load(pods(2));
    await t.settle(2 * MINUTE);
    // One pod in the reservation; the other on c5.large on-demand, since m5.large on-demand is refused.
    expect((await live(t)).map((c) => [c.capacityType, c.instanceType]).sort()).toEqual([
      ['on-demand', 'c5.large'],
      ['reserved', 'm5.large'],
    ]);
  });
});

describe('Capacity Reservations: the EC2NodeClass status', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  const block = (end: number) =>
    reservation({ id: 'cr-0c3', reservationType: 'capacity-block', endTime: new Date(end).toISOString() });

  it('should resolve capacity reservations by ID, and by tags + owner', () => {
    const all = [
      reservation({ id: 'cr-0a1', tags: { team: 'ml' } }),
      reservation({ id: 'cr-0b2', tags: { team: 'ml' }, ownerID: '444455556666' }),
    ];
    expect(selectReservations([{ id: 'cr-0b2' }], all, now).map((r) => r.id)).toEqual(['cr-0b2']);
    const byTags = [{ tags: { team: 'ml' }, ownerID: '111122223333' }];
    expect(selectReservations(byTags, all, now).map((r) => r.id)).toEqual(['cr-0a1']);
    expect(selectReservations([{ tags: { team: '*' } }], all, now).map((r) => r.id)).toEqual(['cr-0a1', 'cr-0b2']);
  });

  it('should resolve capacity reservations by instanceMatchCriteria, alone or with tags', () => {
    const all = [
      reservation({ id: 'cr-0a1', instanceMatchCriteria: 'open', tags: { team: 'ml' } }),
      reservation({ id: 'cr-0b2', instanceMatchCriteria: 'targeted', tags: { team: 'ml' } }),
      reservation({ id: 'cr-0c3', instanceMatchCriteria: 'targeted', tags: { team: 'web' } }),
    ];
    const ids = (terms: Parameters<typeof selectReservations>[0]) =>
      selectReservations(terms, all, now).map((r) => r.id);
    expect(ids([{ instanceMatchCriteria: 'open' }])).toEqual(['cr-0a1']);
    expect(ids([{ instanceMatchCriteria: 'targeted' }])).toEqual(['cr-0b2', 'cr-0c3']);
    expect(ids([{ instanceMatchCriteria: 'targeted', tags: { team: 'ml' } }])).toEqual(['cr-0b2']);
    expect(ids([{ instanceMatchCriteria: 'open', ownerID: '444455556666' }])).toEqual([]);
    expect(ids([{ ownerID: '111122223333' }])).toEqual([]); // an owner alone selects nothing (validation rejects it)
  });

  it('should exclude expired capacity reservations', () => {
    expect(selectReservations([{ id: 'cr-0c3' }], [block(now - 1)], now)).toEqual([]);
  });

  it('should mark capacity blocks as expiring 40 minutes prior to their endDate', () => {
    expect(reservationStatuses([block(now + 41 * MINUTE)], now)[0]?.state).toBe('active');
    expect(reservationStatuses([block(now + 40 * MINUTE)], now)[0]).toMatchObject({
      id: 'cr-0c3',
      reservationType: 'capacity-block',
      state: 'expiring',
    });
  });

  it("shouldn't mark default capacity reservations as expiring 40 minutes prior to their endDate", () => {
    const odcr = reservation({ id: 'cr-0a1', endTime: new Date(now + 10 * MINUTE).toISOString() });
    expect(reservationStatuses([odcr], now)[0]?.state).toBe('active');
  });
});

describe('capacityreservation/expiration', () => {
  const blockBed = (type: 'capacity-block' | 'default', endInMinutes: number) => {
    const t = reservationBed(['reserved'], []);
    const end = new Date(t.clock.now() + endInMinutes * MINUTE).toISOString();
    t.cloud.addReservations([reservation({ id: 'cr-0c3', reservationType: type, endTime: end, tags: { team: 'ml' } })]);
    return t;
  };

  it('should delete nodeclaims associated with expiring capacity-block reservations', async () => {
    const t = blockBed('capacity-block', 120);
    t.cluster.load(pods(1));
    await t.settle(2 * MINUTE);
    const [claim] = (await live(t)) as [NodeClaim];
    expect(claim.capacityReservation).toMatchObject({ id: 'cr-0c3', type: 'capacity-block' });
    expect((await drainExpiringCapacityBlocks(t.deps)).expiring).toEqual([]);
    t.clock.advance(120 * MINUTE - 40 * MINUTE - 2 * MINUTE); // exactly 40 minutes before the end
    expect((await drainExpiringCapacityBlocks(t.deps)).expiring).toEqual([claim.name]);
    expect(await t.store.get(claim.name)).toMatchObject({
      state: 'Draining',
      disruption: { cause: 'Interrupted', detail: expect.stringMatching(/^capacity block cr-0c3 ends at /) },
      drain: { deadline: new Date(Date.parse(claim.capacityReservation?.endTime ?? '') - 30 * MINUTE).toISOString() },
    });
  });

  it('should not delete nodeclaims associated with standard capacity reservations within the capacity block expiration window', async () => {
    const t = blockBed('default', 120);
    t.cluster.load(pods(1));
    await t.settle(2 * MINUTE);
    t.clock.advance(100 * MINUTE);
    expect((await drainExpiringCapacityBlocks(t.deps)).expiring).toEqual([]);
    expect((await live(t)).map((c) => c.state)).toEqual(['Initialized']);
  });
});

describe('Capacity Reservations: drift (pkg/cloudprovider/suite_test.go)', () => {
  /** The bed's class with other selector terms, as a user would apply it. */
  const selecting = (
    t: ReturnType<typeof reservationBed>,
    terms: EC2NodeClass['spec']['capacityReservationSelectorTerms'],
  ) => t.cluster.upsert({ ...t.nodeClass, spec: { ...t.nodeClass.spec, capacityReservationSelectorTerms: terms } });

  async function reservedAndOnDemand() {
    const t = reservationBed(
      ['reserved', 'on-demand'],
      [reservation({ id: 'cr-0a1', totalInstanceCount: 1 }), reservation({ id: 'cr-0b2', totalInstanceCount: 0 })],
    );
    t.cluster.load(pods(2));
    await t.settle(2 * MINUTE);
    const claims = await live(t);
    const inReservation = claims.find((c) => c.capacityType === 'reserved');
    const onDemand = claims.find((c) => c.capacityType === 'on-demand');
    if (!inReservation || !onDemand) throw new Error('expected one reserved and one on-demand claim');
    return { t, inReservation: inReservation.name, onDemand: onDemand.name };
  }

  it('should dynamically drift nodeclaims for capacity reservations', async () => {
    const { t, inReservation, onDemand } = await reservedAndOnDemand();
    expect(await sweepDrift(t, inReservation)).toBeUndefined();
    // The class now selects only cr-0b2: the node in cr-0a1 drifts; the on-demand node does not (the terms are not
    // part of the EC2NodeClass hash, as in Karpenter).
    selecting(t, [{ id: 'cr-0b2' }]);
    expect(await sweepDrift(t, inReservation)).toMatch(/^CapacityReservationDrift: .*cr-0a1/);
    expect(await sweepDrift(t, onDemand)).toBeUndefined();
  });

  it('should not drift when capacity reservation falls back to on-demand', async () => {
    const { t, inReservation } = await reservedAndOnDemand();
    // The reservation ends: EC2 stops listing it and runs its instance on as on-demand, so nothing drifts.
    t.cloud.addReservations([
      reservation({
        id: 'cr-0a1',
        totalInstanceCount: 1,
        endTime: new Date(t.clock.now() + MINUTE).toISOString(),
        tags: { team: 'ml' },
      }),
    ]);
    await t.settle(2 * MINUTE);
    expect(await sweepDrift(t, inReservation)).toBeUndefined();
  });
});
