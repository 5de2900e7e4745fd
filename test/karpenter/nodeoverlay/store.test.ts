// kubernetes-sigs/karpenter pkg/controllers/nodeoverlay/suite_test.go, Describe("Failure Isolation"), and
// store_test.go. Karpless has no store filled by a periodic controller: overlays are applied on every read of the
// cluster, so the store's "unevaluated NodePool" error and the 6h requeue become the departures asserted here.
// Karpless has one overlay step (shared/catalog/overlay.ts, applied by readSnapshot on every read of the cluster);
// Karpenter's fake cloud provider and test.NodeOverlay are testkit/nodeoverlay.ts.
import { describe, expect, it } from 'vitest';
import type { NodeOverlaySpec } from '../../../shared/api/nodeoverlay';
import { applyNodeOverlays } from '../../../shared/catalog/overlay';
import { readSnapshot } from '../../../shared/controllers/snapshot';
import { createTestbed, testNodePool } from '../../../testkit/bed';
import { CT, fake, IT, NP, offering, overlay, POOL, POOL_TWO, reconcile, req } from '../../../testkit/nodeoverlay';

describe('Failure Isolation', () => {
  /** A testbed with a second NodePool whose EC2NodeClass does not exist (Karpenter's "AKSNodeClass not found"). */
  function withBrokenPool() {
    const t = createTestbed();
    const broken = testNodePool('broken');
    t.cluster.upsert({
      ...broken,
      spec: {
        ...broken.spec,
        template: {
          ...broken.spec.template,
          spec: {
            ...broken.spec.template.spec,
            nodeClassRef: { ...broken.spec.template.spec.nodeClassRef, name: 'missing' },
          },
        },
      },
    });
    t.cluster.upsert(overlay({ requirements: [req(IT, 'In', ['m5.large'])], price: '0.001' }, 'cheap-m5'));
    return t;
  }
  const m5Price = (s: Awaited<ReturnType<typeof readSnapshot>>, pool: string) =>
    s.instanceTypes.get(pool)?.find((t) => t.name === 'm5.large')?.offerings[0]?.price;

  it('should evaluate healthy NodePools when one NodePool fails GetInstanceTypes', async () => {
    const s = await readSnapshot(withBrokenPool().deps);
    expect(m5Price(s, 'default')).toBe(0.001);
    expect(s.instanceTypes.get('broken')).toBeUndefined();
    expect(s.problems.map((p) => p.nodePool)).toContain('broken');
  });
  it('should update the store even when one NodePool fails', async () => {
    // No store to warm: the very first read after a start applies the overlay to the healthy pool.
    const s = await readSnapshot(withBrokenPool().deps);
    expect(m5Price(s, 'default')).toBe(0.001);
  });
  it('should use normal requeue interval when all NodePools succeed', async () => {
    // Departure: Karpenter re-evaluates every 6h (or on an overlay change); Karpless on every read, so an overlay
    // created between two reads prices the second.
    const t = createTestbed();
    const before = await readSnapshot(t.deps);
    t.cluster.upsert(overlay({ requirements: [req(IT, 'In', ['m5.large'])], price: '0.001' }, 'cheap-m5'));
    const after = await readSnapshot(t.deps);
    expect(m5Price(before, 'default')).not.toBe(0.001);
    expect(m5Price(after, 'default')).toBe(0.001);
  });
  it('should recover when a previously failing NodePool becomes healthy', async () => {
    const t = withBrokenPool();
    expect((await readSnapshot(t.deps)).instanceTypes.get('broken')).toBeUndefined();
    t.cluster.upsert({ ...t.nodeClass, metadata: { ...t.nodeClass.metadata, name: 'missing' } });
    expect(m5Price(await readSnapshot(t.deps), 'broken')).toBe(0.001);
  });
});

describe('store_test.go', () => {
  // Karpenter copies only what an overlay changes; Karpless keeps every untouched part of a type by reference too.
  const base = fake('default-instance-type', {
    offerings: [offering('spot', 'test-zone-1', 1.02), offering('on-demand', 'test-zone-1', 2.02)],
  });
  const one = (spec: NodeOverlaySpec) => reconcile(spec ? [overlay({ weight: 10, ...spec })] : [], [base]).types()[0];
  describe('should handle different overlay scenarios', () => {
    it('no overlays - everything shared', () => {
      expect(reconcile([], [base]).types()[0]).toBe(base);
    });
    it('price overlay only - offerings copied, others shared', () => {
      const t = one({ price: '3' });
      expect(t?.offerings).not.toBe(base.offerings);
      expect(t?.capacity).toBe(base.capacity);
      expect(t?.allocatable).toBe(base.allocatable);
      expect(t?.labels).toBe(base.labels);
      expect(base.offerings.map((o) => o.price)).toEqual([1.02, 2.02]);
    });
    it('capacity overlay only - capacity copied, others shared', () => {
      const t = one({ capacity: { 'smarter-devices/fuse': '1' } });
      expect(t?.capacity).not.toBe(base.capacity);
      expect(t?.offerings).toBe(base.offerings);
      expect(t?.labels).toBe(base.labels);
      expect(base.capacity['smarter-devices/fuse']).toBeUndefined();
    });
    it('both overlays - only modified fields copied', () => {
      const r = reconcile(
        [overlay({ weight: 10, price: '3' }), overlay({ weight: 20, capacity: { 'smarter-devices/fuse': '1' } })],
        [base],
      );
      const t = r.types()[0];
      expect(t?.offerings).not.toBe(base.offerings);
      expect(t?.capacity).not.toBe(base.capacity);
      expect(t?.labels).toBe(base.labels);
    });
  });
  describe('with price overlay', () => {
    it('should correctly apply price overlay to specific offerings', () => {
      const t = reconcile(
        [overlay({ requirements: [req(CT, 'In', ['spot'])], price: '0.5', weight: 10 })],
        [base],
      ).types()[0];
      expect(t?.offerings.map((o) => o.price)).toEqual([0.5, 2.02]);
    });
  });
  describe('with capacity overlay', () => {
    it('should correctly apply capacity overlay', () => {
      const t = one({ capacity: { 'smarter-devices/fuse': '2' } });
      expect(t?.capacity['smarter-devices/fuse']).toBe(2);
      expect(t?.allocatable['smarter-devices/fuse']).toBe(2);
      expect(t?.capacity.cpu).toBe(base.capacity.cpu);
    });
  });
  it('should apply different overlays to different node pools', () => {
    const r = reconcile(
      [
        overlay({ requirements: [req(NP, 'In', [POOL.name])], price: '7', weight: 10 }),
        overlay({ requirements: [req(NP, 'In', [POOL_TWO.name])], price: '9', weight: 10 }),
      ],
      [base],
      [POOL, POOL_TWO],
    );
    expect(r.types()[0]?.offerings.map((o) => o.price)).toEqual([7, 7]);
    expect(r.types(POOL_TWO.name)[0]?.offerings.map((o) => o.price)).toEqual([9, 9]);
  });
  it('should return error for unevaluated node pool', () => {
    // Departure: there is no store to be unevaluated; a pool not in the read is simply absent from the result.
    const r = applyNodeOverlays([overlay({ price: '7' })], [POOL], new Map([[POOL.name, [base]]]));
    expect(r.instanceTypes.has(POOL_TWO.name)).toBe(false);
  });
  it('should integrate overlays through the public interface', async () => {
    const t = createTestbed();
    t.cluster.upsert(
      overlay(
        {
          requirements: [req(IT, 'In', ['m5.large'])],
          priceAdjustment: '-50%',
          capacity: { 'smarter-devices/fuse': '1' },
        },
        'half-m5',
      ),
    );
    const s = await readSnapshot(t.deps);
    const m5 = s.instanceTypes.get('default')?.find((x) => x.name === 'm5.large');
    expect(
      m5?.offerings.every((o) => o.overlay?.name === 'half-m5' && Math.abs(o.price - o.overlay.basePrice / 2) < 1e-9),
    ).toBe(true);
    expect(m5?.capacity['smarter-devices/fuse']).toBe(1);
  });
});
