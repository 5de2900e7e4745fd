// kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/reservationmanager_test.go and the scheduler's
// reserved-offering cases, on the solver's reservation pass (shared/scheduling/reserve.ts): a plan never puts more
// claims in a reservation than it has room for, prefers reservations to spot and on-demand, and falls back.
import { describe, expect, it } from 'vitest';
import { LabelCapacityReservationId, LabelCapacityType } from '../../../shared/api/labels';
import { withReservedOfferings } from '../../../shared/catalog/reservations';
import { nodePool, pod } from '../../../testkit/builders';
import { makeInstanceType } from '../../../testkit/instance-types';
import { reservation } from '../../../testkit/reservations';
import { run } from '../../../testkit/solve';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const m5 = makeInstanceType('m5.large', { onDemand: 0.096, spot: { 'us-east-1a': 0.04 }, zones: ['us-east-1a'] });
const typesWith = (capacity: number) =>
  withReservedOfferings([m5], [reservation({ id: 'cr-0a1', totalInstanceCount: capacity })], NOW);
const pool = (capacityTypes: string[]) =>
  nodePool({ requirements: [{ key: LabelCapacityType, operator: 'In', values: capacityTypes }] });
/** 1500m: one pod per 2-vCPU node. */
const pods = (n: number) => Array.from({ length: n }, (_, i) => pod({ name: `p-${i}`, cpu: '1500m' }));

describe('reservationmanager_test.go', () => {
  it('should decrement available capacity: claims past the room fall back to the pool’s other capacity types', () => {
    const r = run({ nodePools: [pool(['reserved', 'spot', 'on-demand'])], types: typesWith(2), pods: pods(4) });
    expect(r.nodeClaims.map((c) => c.cheapest.capacityType).sort()).toEqual(['reserved', 'reserved', 'spot', 'spot']);
    const reserved = r.nodeClaims.filter((c) => c.cheapest.capacityType === 'reserved');
    for (const c of reserved) {
      expect(c.labels[LabelCapacityType]).toBe('reserved');
      expect(c.labels[LabelCapacityReservationId]).toBe('cr-0a1');
      expect(c.requirements).toContainEqual({ key: LabelCapacityReservationId, operator: 'In', values: ['cr-0a1'] });
    }
    const fallback = r.nodeClaims.filter((c) => c.cheapest.capacityType !== 'reserved');
    for (const c of fallback) {
      expect(c.requirements).toContainEqual({ key: LabelCapacityType, operator: 'In', values: ['on-demand', 'spot'] });
    }
  });

  it('should prefer a reservation with room to spot, priced as Karpenter prices it (on-demand / 10,000,000)', () => {
    const r = run({ nodePools: [pool(['reserved', 'spot', 'on-demand'])], types: typesWith(1), pods: pods(1) });
    expect(r.nodeClaims[0]?.cheapest).toEqual({
      instanceType: 'm5.large',
      zone: 'us-east-1a',
      capacityType: 'reserved',
      price: 0.096 / 10_000_000,
    });
  });

  it('should return false when capacity is exhausted: a reserved-only pool leaves the rest pending', () => {
    const r = run({ nodePools: [pool(['reserved'])], types: typesWith(1), pods: pods(3) });
    expect(r.nodeClaims.length).toBe(1);
    expect(r.unschedulable.map((u) => u.reason)).toEqual([
      'nodepool "default": capacity reservations cr-0a1 have no room left, and the pool allows no other capacity type',
      'nodepool "default": capacity reservations cr-0a1 have no room left, and the pool allows no other capacity type',
    ]);
  });

  it('should not use reserved offerings when the pool does not allow reserved', () => {
    const r = run({ nodePools: [pool(['on-demand'])], types: typesWith(5), pods: pods(2) });
    expect(r.nodeClaims.map((c) => c.cheapest.capacityType)).toEqual(['on-demand', 'on-demand']);
  });
});
