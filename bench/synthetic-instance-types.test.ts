import { describe, expect, it } from 'vitest';
import { syntheticInstanceTypes } from './synthetic-instance-types';

describe('syntheticInstanceTypes', () => {
  const types = syntheticInstanceTypes(400);

  it('makes 400 types where type i has i+1 vCPU, 2(i+1) GiB and 10(i+1) pods', () => {
    expect(types).toHaveLength(400);
    const t9 = types[9]!;
    expect(t9.name).toBe('fake-it-9');
    expect(t9.capacity).toEqual({ cpu: 10_000, memory: 20 * 2 ** 30, pods: 100 });
    expect(types[399]!.capacity.cpu).toBe(400_000);
  });

  it('keeps back Karpenter’s fake kube-reserved overhead, 100m cpu and 10Mi memory, from allocatable', () => {
    const t0 = types[0]!;
    expect(t0.overhead.kubeReserved).toEqual({ cpu: 100, memory: 10 * 2 ** 20 });
    expect(t0.allocatable).toEqual({ cpu: 900, memory: 2 * 2 ** 30 - 10 * 2 ** 20, pods: 10 });
  });

  it('gives each type five available offerings at one price', () => {
    for (const t of [types[0]!, types[123]!]) {
      expect(t.offerings).toHaveLength(5);
      expect(new Set(t.offerings.map((o) => o.price)).size).toBe(1);
      expect(t.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.zone)).toEqual([
        'test-zone-1',
        'test-zone-2',
      ]);
      expect(t.offerings.filter((o) => o.capacityType === 'on-demand').map((o) => o.zone)).toEqual([
        'test-zone-1',
        'test-zone-2',
        'test-zone-3',
      ]);
      expect(t.offerings.every((o) => o.available)).toBe(true);
    }
    // 1 vCPU and 2 GiB: 0.1 + 0.1 × 2.147 GB
    expect(types[0]!.offerings[0]!.price).toBeCloseTo(0.1 + 0.1 * ((2 * 2 ** 30) / 1e9), 9);
  });
});
