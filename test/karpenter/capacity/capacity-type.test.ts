// aws/karpenter-provider-aws pkg/controllers/capacityreservation/capacitytype/suite_test.go ("Capacity Reservation
// Capacity Type Controller"), on the engine's syncReservedCapacityTypes (the GC tick runs it) over the simulated
// account: a reservation that ends releases its instances to on-demand, as EC2 does, and the controller demotes their
// NodeClaims and Nodes from `reserved` to `on-demand` (docs/aws.md, Capacity reservations).
import { describe, expect, it } from 'vitest';
import {
  LabelCapacityReservationId,
  LabelCapacityReservationType,
  LabelCapacityType,
} from '../../../shared/api/labels';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import { reconcileNodes } from '../../../shared/controllers/lifecycle';
import { provision } from '../../../shared/controllers/provision';
import { syncReservedCapacityTypes } from '../../../shared/controllers/reservation-capacity-type';
import { startTermination } from '../../../shared/controllers/termination';
import { makePod } from '../../../testkit/bed';
import { reservation, reservationBed } from '../../../testkit/reservations';

const HOUR = 3_600_000;
const START = Date.parse('2026-01-01T00:00:00Z');
const reservedBed = () =>
  reservationBed(
    ['reserved', 'on-demand'],
    [reservation({ id: 'cr-0a1', totalInstanceCount: 1, endTime: new Date(START + HOUR).toISOString() })],
    ['m5.large'],
  );

async function onlyClaim(t: ReturnType<typeof reservedBed>): Promise<NodeClaim> {
  const [claim, ...rest] = await t.store.list();
  expect(rest).toEqual([]);
  if (!claim) throw new Error('no claim');
  return claim;
}

async function nodeLabels(t: ReturnType<typeof reservedBed>, name: string | undefined) {
  return (await t.cluster.listNodes()).find((n) => n.metadata.name === name)?.metadata.labels ?? {};
}

describe('Capacity Reservation Capacity Type Controller', () => {
  it('should demote nodeclaims and nodes from reserved to on-demand', async () => {
    const t = reservedBed();
    t.cluster.addPod(makePod('trainer', { cpu: '1' }));
    await t.settle(60_000);
    const claim = await onlyClaim(t);
    expect(claim.state).toBe('Initialized');
    expect(claim.capacityType).toBe('reserved');

    // The instance is still in its reservation: nothing changes.
    expect(await syncReservedCapacityTypes(t.deps)).toEqual({ demoted: [] });
    expect((await onlyClaim(t)).labels).toMatchObject({
      [LabelCapacityType]: 'reserved',
      [LabelCapacityReservationId]: 'cr-0a1',
      [LabelCapacityReservationType]: 'default',
    });
    expect(await nodeLabels(t, claim.nodeName)).toMatchObject({
      [LabelCapacityType]: 'reserved',
      [LabelCapacityReservationId]: 'cr-0a1',
      [LabelCapacityReservationType]: 'default',
    });

    // The reservation ends: EC2 runs the instance on as on-demand, and the next pass demotes claim and node.
    t.clock.advance(HOUR);
    expect(await syncReservedCapacityTypes(t.deps)).toEqual({ demoted: [claim.name] });
    const demoted = await onlyClaim(t);
    expect(demoted.capacityType).toBe('on-demand');
    expect(demoted.capacityReservation).toBeUndefined();
    expect(demoted.labels[LabelCapacityType]).toBe('on-demand');
    expect(demoted.labels).not.toHaveProperty(LabelCapacityReservationId);
    expect(demoted.labels).not.toHaveProperty(LabelCapacityReservationType);
    expect(demoted.pricePerHour).toBeCloseTo(0.096, 6);
    const labels = await nodeLabels(t, claim.nodeName);
    expect(labels[LabelCapacityType]).toBe('on-demand');
    expect(labels).not.toHaveProperty(LabelCapacityReservationId);
    expect(labels).not.toHaveProperty(LabelCapacityReservationType);
    // Once demoted, later passes leave it alone.
    expect(await syncReservedCapacityTypes(t.deps)).toEqual({ demoted: [] });
  });

  it('should demote nodes from reserved to on-demand even if their nodeclaim was demoted previously', async () => {
    const t = reservedBed();
    t.cluster.addPod(makePod('trainer', { cpu: '1' }));
    await provision(t.deps);
    // Launched, its node not registered yet, when the reservation ends.
    t.clock.advance(HOUR);
    expect((await onlyClaim(t)).state).toBe('Launched');
    expect((await syncReservedCapacityTypes(t.deps)).demoted).toHaveLength(1);
    expect((await onlyClaim(t)).capacityType).toBe('on-demand');

    // The kubelet registers the node with the launch's reserved labels; registration takes them off.
    await t.settle(60_000);
    const claim = await onlyClaim(t);
    expect(claim.state).toBe('Initialized');
    const labels = await nodeLabels(t, claim.nodeName);
    expect(labels[LabelCapacityType]).toBe('on-demand');
    expect(labels).not.toHaveProperty(LabelCapacityReservationId);
    expect(labels).not.toHaveProperty(LabelCapacityReservationType);
  });

  it('leaves draining nodeclaims alone, as Karpenter skips deleting ones', async () => {
    const t = reservedBed();
    t.cluster.addPod(makePod('trainer', { cpu: '1' }));
    await t.settle(60_000);
    await startTermination(t.deps, await onlyClaim(t), { cause: 'Deleted', detail: 'test' });
    t.clock.advance(HOUR);
    expect(await syncReservedCapacityTypes(t.deps)).toEqual({ demoted: [] });
    expect((await onlyClaim(t)).capacityType).toBe('reserved');
  });

  it('asks the cloud nothing when no claim is reserved', async () => {
    const t = reservationBed(['on-demand'], []);
    t.cluster.addPod(makePod('web', { cpu: '1' }));
    await t.settle(60_000);
    await reconcileNodes(t.deps);
    let listed = 0;
    const list = t.cloud.list.bind(t.cloud);
    const counted = () => {
      listed += 1;
      return list();
    };
    t.deps.cloud = Object.assign(Object.create(t.cloud), { list: counted });
    expect(await syncReservedCapacityTypes(t.deps)).toEqual({ demoted: [] });
    expect(listed).toBe(0);
  });
});
