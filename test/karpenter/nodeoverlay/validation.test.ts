// kubernetes-sigs/karpenter pkg/controllers/nodeoverlay/suite_test.go, Describe("Validation"), case by case.
// Karpless has one overlay step (shared/catalog/overlay.ts, applied by readSnapshot on every read of the cluster);
// Karpenter's fake cloud provider and test.NodeOverlay are testkit/nodeoverlay.ts.
import { describe, expect, it } from 'vitest';
import type { NodeOverlay, NodeOverlaySpec } from '../../../shared/api/nodeoverlay';
import { readSnapshot } from '../../../shared/controllers/snapshot';
import { createTestbed } from '../../../testkit/bed';
import {
  ADJUST,
  CT,
  FOUR_OFFERINGS,
  fake,
  IT,
  overlay,
  PRICE,
  RESET_TYPES,
  reconcile,
  req,
  ZONE,
} from '../../../testkit/nodeoverlay';

describe('Validation', () => {
  it('should return the same instance type when zero overlay are applied', () => {
    const r = reconcile([]);
    expect(r.types()).toHaveLength(1);
    expect(r.types()[0]?.offerings.map((o) => o.price)).toEqual([1.02]);
  });
  it('should pass with a single overlay', () => {
    const o = overlay({ requirements: [req(IT, 'In', ['default-instance-type'])], weight: 10 });
    expect(reconcile([o]).validated(o)).toBe(true);
  });

  describe('Runtime Validation', () => {
    // Karpenter validates each overlay in the cluster at runtime; Karpless does so on each read of the cluster.
    async function readWith(o: NodeOverlay) {
      const t = createTestbed();
      t.cluster.upsert(o);
      return readSnapshot(t.deps);
    }
    it('should fail validation for invalid requirements values', async () => {
      const o = overlay({
        requirements: [{ key: `test.com.test/test-${'a'.repeat(250)}`, operator: 'Exists' }],
        weight: 10,
        price: '0.001',
      });
      const s = await readWith(o);
      expect(s.overlayConflicts.map((c) => c.overlay)).toEqual([o.metadata.name]);
      expect(s.overlayConflicts[0]?.reason).toMatch(/^fails validation: .*spec\.requirements\[0\]\.key/);
      const prices = [...s.instanceTypes.values()].flat().flatMap((t) => t.offerings.map((x) => x.price));
      expect(prices).not.toContain(0.001);
    });
    it('should fail validation for invalid capacity values', async () => {
      // Karpenter adds a resource to WellKnownResources for this test; cpu is one already.
      const o = overlay({ requirements: [req(IT, 'In', ['m5.large'])], capacity: { cpu: '5' }, weight: 10 });
      const s = await readWith(o);
      expect(s.overlayConflicts[0]?.reason).toMatch(/^fails validation: .*spec\.capacity\["cpu"\]/);
      const m5 = s.instanceTypes.get('default')?.find((t) => t.name === 'm5.large');
      expect(m5?.capacity.cpu).toBe(2000);
    });
  });

  describe('Requirements Validations', () => {
    describe('Instance types Requirements', () => {
      it('should fail when requirements overlays overlap', () => {
        const a = overlay(
          { requirements: [req('kubernetes.io/arch', 'In', ['arm64'])], weight: 10, price: '1.03' },
          'overlay-a',
        );
        const b = overlay({ requirements: [req(CT, 'Exists')], weight: 10, price: '23' }, 'overlay-b');
        const r = reconcile([a, b], RESET_TYPES);
        expect(r.validated(a)).toBe(false);
        expect(r.conflicts[0]?.reason).toMatch(/conflicts with NodeOverlay overlay-b \(same weight 10\)/);
        expect(r.validated(b)).toBe(true);
      });
      it("should succeed with requirements overlays don't overlap", () => {
        const types = [
          fake('arm-instance-type', { arch: 'arm64', os: 'linux' }),
          fake('amd-instance-type', { os: 'ios' }),
        ];
        const a = overlay(
          { requirements: [req('kubernetes.io/arch', 'In', ['arm64'])], weight: 10, price: '1.03' },
          'overlay-a',
        );
        const b = overlay(
          { requirements: [req('kubernetes.io/os', 'In', ['ios'])], weight: 10, price: '23' },
          'overlay-b',
        );
        const r = reconcile([a, b], types);
        expect([r.validated(a), r.validated(b)]).toEqual([true, true]);
      });
    });

    describe('Offering Requirements', () => {
      const run = (aReq: ReturnType<typeof req>, bReq: ReturnType<typeof req>) => {
        const a = overlay({ requirements: [aReq], weight: 10, price: '1.03' }, 'overlay-a');
        const b = overlay({ requirements: [bReq], weight: 10, price: '23' }, 'overlay-b');
        const r = reconcile([a, b], [FOUR_OFFERINGS]);
        return [r.validated(a), r.validated(b)];
      };
      it('should fail with requirements overlays overlap on zone', () => {
        expect(run(req(ZONE, 'In', ['test-zone-1', 'test-zone-4']), req(CT, 'Exists'))).toEqual([false, true]);
      });
      it('should fail with requirements overlays overlap on capacity type', () => {
        expect(run(req(CT, 'Exists'), req(CT, 'In', ['spot']))).toEqual([false, true]);
      });
      it("should succeed with requirements overlays don't overlap", () => {
        expect(run(req(ZONE, 'In', ['test-zone-6', 'test-zone-4']), req(CT, 'In', ['spot']))).toEqual([true, true]);
      });
      it('should fail with requirements overlays overlap', () => {
        expect(run(req(ZONE, 'In', ['test-zone-1', 'test-zone-4']), req(CT, 'In', ['spot']))).toEqual([false, true]);
      });
    });
  });

  describe('Pricing Updates', () => {
    const pair = (
      aValues: string[],
      bValues: string[],
      aChange: NodeOverlaySpec,
      bChange: NodeOverlaySpec,
      opB: 'In' | 'NotIn' = 'In',
      bWeight = 10,
    ) => {
      const a = overlay({ requirements: [req(IT, 'In', aValues)], weight: 10, ...aChange }, 'overlay-a');
      const b = overlay({ requirements: [req(IT, opB, bValues)], weight: bWeight, ...bChange }, 'overlay-b');
      const r = reconcile([a, b], RESET_TYPES);
      return [r.validated(a), r.validated(b)];
    };
    const overlapping = (a: NodeOverlaySpec, b: NodeOverlaySpec) =>
      pair(
        ['default-instance-type', 'small-instance-type'],
        ['default-instance-type', 'gpu-vendor-instance-type'],
        a,
        b,
      );
    it.each([
      ['Price', PRICE('1.03'), PRICE('23')],
      ['PriceAdjustment', ADJUST('+54'), ADJUST('-2')],
    ])('should fail with conflicting pricing updates overlays with overlapping requirements (%s)', (_, a, b) => {
      expect(overlapping(a, b)).toEqual([false, true]);
    });
    it.each([
      ['Price', PRICE('100'), PRICE('100')],
      ['PriceAdjustment', ADJUST('+100'), ADJUST('+100')],
    ])('should fail with pricing updates are the same overlays with overlapping requirements (%s)', (_, a, b) => {
      expect(overlapping(a, b)).toEqual([false, true]);
    });
    it.each([
      ['Price', PRICE('54'), PRICE('23')],
      ['PriceAdjustment', ADJUST('+54'), ADJUST('-2')],
    ])('should pass with conflicting pricing updates overlays with mutually exclusive requirements (%s)', (_, a, b) => {
      expect(pair(['default-instance-type'], ['default-instance-type'], a, b, 'NotIn')).toEqual([true, true]);
    });
    it.each([
      ['Price', PRICE('34'), PRICE('2')],
      ['PriceAdjustment', ADJUST('-4'), ADJUST('-2')],
    ])('should pass with conflicting pricing update overlays with mutually exclusive weights (%s)', (_, a, b) => {
      expect(
        pair(['default-instance-type'], ['default-instance-type', 'gpu-vendor-instance-type'], a, b, 'In', 20),
      ).toEqual([true, true]);
    });
  });

  describe('Capacity Adjustment', () => {
    const pair = (
      a: { values: string[]; capacity: Record<string, string>; op?: 'In' | 'NotIn' },
      b: { values: string[]; capacity: Record<string, string>; op?: 'In' | 'NotIn'; weight?: number },
    ) => {
      const oa = overlay(
        { requirements: [req(IT, a.op ?? 'In', a.values)], weight: 10, capacity: a.capacity },
        'overlay-a',
      );
      const ob = overlay(
        { requirements: [req(IT, b.op ?? 'In', b.values)], weight: b.weight ?? 10, capacity: b.capacity },
        'overlay-b',
      );
      const r = reconcile([oa, ob], RESET_TYPES);
      return [r.validated(oa), r.validated(ob)];
    };
    it('should fail with conflicting capacity overlays with overlapping requirements', () => {
      expect(
        pair(
          { values: ['default-instance-type', 'small-instance-type'], capacity: { 'smarter-devices/fuse': '1' } },
          { values: ['default-instance-type', 'gpu-vendor-instance-type'], capacity: { 'smarter-devices/fuse': '54' } },
        ),
      ).toEqual([false, true]);
    });
    it('should fail with conflicting capacity overlays with multiple overlays', () => {
      const one = overlay(
        {
          requirements: [req(IT, 'In', ['default-instance-type', 'small-instance-type'])],
          weight: 10,
          capacity: { 'hugepage-1Gi': '2Gi' },
        },
        'conflicting-overlay-1',
      );
      const good = overlay(
        {
          requirements: [req(IT, 'In', ['default-instance-type'])],
          weight: 10,
          capacity: { 'smarter-devices/fuse': '1' },
        },
        'good-overlay-1',
      );
      const two = overlay(
        { requirements: [req(IT, 'In', ['default-instance-type'])], weight: 10, capacity: { 'hugepage-1Gi': '3Gi' } },
        'conflicting-overlay-2',
      );
      const r = reconcile([one, good, two], RESET_TYPES);
      expect([r.validated(one), r.validated(good), r.validated(two)]).toEqual([false, true, true]);
    });
    it('should pass with capacity adjustment are the same overlays with overlapping requirements', () => {
      // Despite its name, Karpenter's case expects a conflict: the same quantity still sets the resource twice.
      expect(
        pair(
          { values: ['default-instance-type', 'small-instance-type'], capacity: { 'smarter-devices/fuse': '54' } },
          { values: ['default-instance-type', 'gpu-vendor-instance-type'], capacity: { 'smarter-devices/fuse': '54' } },
        ),
      ).toEqual([false, true]);
    });
    it('should pass with conflicting capacity overlays with mutually exclusive requirements', () => {
      expect(
        pair(
          { values: ['default-instance-type'], capacity: { 'smarter-devices/fuse': '54' } },
          { values: ['default-instance-type'], capacity: { 'smarter-devices/fuse': '5' }, op: 'NotIn' },
        ),
      ).toEqual([true, true]);
    });
    it('should pass with conflicting capacity overlays with mutually exclusive weights', () => {
      expect(
        pair(
          { values: ['default-instance-type'], capacity: { 'smarter-devices/fuse': '55' } },
          {
            values: ['default-instance-type', 'gpu-vendor-instance-type'],
            capacity: { 'smarter-devices/fuse': '5' },
            weight: 20,
          },
        ),
      ).toEqual([true, true]);
    });
    it('should pass with non conflicting capacity overlays with overlapping requirements', () => {
      expect(
        pair(
          { values: ['default-instance-type'], capacity: { 'smarter-devices/fuse': '55' } },
          {
            values: ['default-instance-type', 'gpu-vendor-instance-type'],
            capacity: { 'smarter-devices/buz': '5' },
            weight: 20,
          },
        ),
      ).toEqual([true, true]);
    });
  });
});
