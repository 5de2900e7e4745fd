// kubernetes-sigs/karpenter pkg/controllers/nodeoverlay/suite_test.go, Describe("Instance Type Controller"), case
// by case; each DescribeTable entry (Price, PriceAdjustment) is one row of an it.each.
// Karpless has one overlay step (shared/catalog/overlay.ts, applied by readSnapshot on every read of the cluster);
// Karpenter's fake cloud provider and test.NodeOverlay are testkit/nodeoverlay.ts.
import { describe, expect, it } from 'vitest';
import type { NodeOverlaySpec } from '../../../shared/api/nodeoverlay';
import { applyNodeOverlays } from '../../../shared/catalog/overlay';
import { readSnapshot } from '../../../shared/controllers/snapshot';
import { createTestbed } from '../../../testkit/bed';
import {
  ADJUST,
  CT,
  capacityApplied,
  fake,
  IT,
  NP,
  offering,
  overlay,
  POOL,
  POOL_TWO,
  PRICE,
  priceIn,
  pricingApplied,
  RESET_TYPES,
  reconcile,
  req,
  ZONE,
} from '../../../testkit/nodeoverlay';

describe('Instance Type Controller', () => {
  describe('Price Updates', () => {
    describe('Requirements', () => {
      it.each([
        ['Price', PRICE('13234.223'), 13234.223],
        ['PriceAdjustment', ADJUST('+1000'), 1001.02],
      ])(
        'should pass with conflicting pricing update overlays with mutually exclusive weights (%s)',
        (_, change, want) => {
          const o = overlay({ requirements: [req(NP, 'In', [POOL.name])], weight: 10, ...change });
          const r = reconcile([o], undefined, [POOL, POOL_TWO]);
          expect(r.types()[0]?.offerings[0]?.price).toBeCloseTo(want, 6);
          expect(r.types(POOL_TWO.name)[0]?.offerings[0]?.price).toBe(1.02);
        },
      );
      it.each([
        ['Price', PRICE('13234.223'), PRICE('232.11'), 13234.223, 232.11],
        ['PriceAdjustment', ADJUST('+1000'), ADJUST('+2500'), 1001.02, 2501.02],
      ])('should pass with conflicting pricing update overlays for all nodepools (%s)', (_, a, b, one, two) => {
        const r = reconcile(
          [
            overlay({ requirements: [req(NP, 'In', [POOL.name])], weight: 10, ...a }),
            overlay({ requirements: [req(NP, 'In', [POOL_TWO.name])], weight: 10, ...b }),
          ],
          undefined,
          [POOL, POOL_TWO],
        );
        expect(r.conflicts).toEqual([]);
        expect(r.types()[0]?.offerings[0]?.price).toBeCloseTo(one, 6);
        expect(r.types(POOL_TWO.name)[0]?.offerings[0]?.price).toBeCloseTo(two, 6);
      });
      it.each([
        ['Price', PRICE('13234.223'), 13234.223],
        ['PriceAdjustment', ADJUST('+1000'), 1001.02],
      ])(
        'should only apply pricing updates for nodeclaim spec labels that defined in the overlay requirements (%s)',
        (_, change, want) => {
          const labelled = { ...POOL_TWO, labels: { 'test-label': 'test-value' } };
          const o = overlay({ requirements: [req('test-label', 'In', ['test-value'])], weight: 10, ...change });
          const r = reconcile([o], undefined, [POOL, labelled]);
          expect(r.types()[0]?.offerings[0]?.price).toBe(1.02);
          expect(r.types(POOL_TWO.name)[0]?.offerings[0]?.price).toBeCloseTo(want, 6);
        },
      );
    });

    it.each([
      ['Price', PRICE('13234.223')],
      ['PriceAdjustment', ADJUST('+1000')],
    ])('should not apply pricing updates for invalid overlays (%s)', async (_, change) => {
      const t = createTestbed();
      const o = overlay({
        requirements: [{ key: `test.com.test/test-${'a'.repeat(250)}`, operator: 'Exists' }],
        weight: 10,
        ...change,
      });
      t.cluster.upsert(o);
      const s = await readSnapshot(t.deps);
      expect(s.overlayConflicts.map((c) => c.overlay)).toEqual([o.metadata.name]);
      for (const type of s.instanceTypes.get('default') ?? []) expect(pricingApplied(type)).toBe(false);
    });
    it.each([
      ['Price', PRICE('13234.223')],
      ['PriceAdjustment', ADJUST('+1000')],
    ])(
      'should not apply adjustments for overlays that do not overlap with instance types requirements (%s)',
      (_, change) => {
        const r = reconcile([
          overlay({ requirements: [req(IT, 'In', ['default-instance-type-not-found'])], weight: 10, ...change }),
        ]);
        expect(r.types()[0]?.offerings[0]?.price).toBe(1.02);
      },
    );
    it.each([
      ['Price', PRICE('13234.223'), 13234.223],
      ['PriceAdjustment', ADJUST('+1000'), 1001.02],
    ])('should apply pricing updates for instances types (%s)', (_, change, want) => {
      const r = reconcile([
        overlay({ requirements: [req(IT, 'In', ['default-instance-type'])], weight: 10, ...change }),
      ]);
      expect(r.types()[0]?.offerings[0]?.price).toBeCloseTo(want, 6);
    });
    it.each([
      ['Price', PRICE('12321.32'), 12321.32],
      ['PriceAdjustment', ADJUST('+1000'), 1005.02],
    ])('should apply pricing updates for instances types for capacity type (%s)', (_, change, want) => {
      const type = fake('default-instance-type', {
        offerings: [offering('spot', 'test-zone-1', 1.02), offering('on-demand', 'test-zone-1', 5.02)],
      });
      const r = reconcile([overlay({ requirements: [req(CT, 'In', ['on-demand'])], weight: 10, ...change })], [type]);
      const t = r.type('default-instance-type');
      expect(priceIn(t, (o) => o.capacityType === 'on-demand')?.[0]).toBeCloseTo(want, 6);
      expect(priceIn(t, (o) => o.capacityType === 'spot')).toEqual([1.02]);
    });
    it.each([
      ['Price', PRICE('121.421'), 121.421],
      ['PriceAdjustment', ADJUST('+1000'), 1001.02],
    ])('should apply pricing updates for instances types for availability zone (%s)', (_, change, want) => {
      const type = fake('default-instance-type', {
        offerings: [offering('spot', 'test-zone-1', 1.02), offering('spot', 'test-zone-2', 5.02)],
      });
      const r = reconcile(
        [overlay({ requirements: [req(ZONE, 'In', ['test-zone-1'])], weight: 10, ...change })],
        [type],
      );
      const t = r.type('default-instance-type');
      expect(priceIn(t, (o) => o.zone === 'test-zone-1')?.[0]).toBeCloseTo(want, 6);
      expect(priceIn(t, (o) => o.zone === 'test-zone-2')).toEqual([5.02]);
    });

    const THREE = fake('default-instance-type', {
      offerings: [
        offering('spot', 'test-zone-1', 1.02),
        offering('on-demand', 'test-zone-2', 2.02),
        offering('reserved', 'test-zone-4', 4.02),
      ],
    });
    it.each([
      ['Price', PRICE('121.421'), PRICE('165.421'), [121.421, 121.421, 165.421]],
      ['PriceAdjustment', ADJUST('+201'), ADJUST('-0.5'), [203.02, 205.02, 0.52]],
    ])(
      'should update price updates offerings instance types from multiple overlays (%s)',
      (_, a, b, [z2, z4, spot]) => {
        const r = reconcile(
          [
            overlay({ requirements: [req(ZONE, 'In', ['test-zone-2', 'test-zone-4'])], weight: 10, ...a }),
            overlay({ requirements: [req(CT, 'In', ['spot'])], weight: 10, ...b }),
          ],
          [THREE],
        );
        const t = r.type('default-instance-type');
        expect(t?.offerings).toHaveLength(3);
        expect(priceIn(t, (o) => o.zone === 'test-zone-2')?.[0]).toBeCloseTo(z2 as number, 6);
        expect(priceIn(t, (o) => o.zone === 'test-zone-4')?.[0]).toBeCloseTo(z4 as number, 6);
        expect(priceIn(t, (o) => o.capacityType === 'spot')?.[0]).toBeCloseTo(spot as number, 6);
      },
    );
    it.each([
      ['Price', PRICE('121.421'), PRICE('165.421'), [121.421, 165.421]],
      ['PriceAdjustment', ADJUST('+201'), ADJUST('-1.5'), [203.02, 2.52]],
    ])(
      'should update price updates offerings instance types from multiple overlays with different weights (%s)',
      (_, a, b, [z2, z4]) => {
        const r = reconcile(
          [
            overlay({ requirements: [req(ZONE, 'In', ['test-zone-2'])], weight: 20, ...a }, 'a-test-100'),
            overlay(
              { requirements: [req(ZONE, 'In', ['test-zone-2', 'test-zone-4'])], weight: 10, ...b },
              'b-test-100',
            ),
          ],
          [THREE],
        );
        const t = r.type('default-instance-type');
        expect(priceIn(t, (o) => o.zone === 'test-zone-2')?.[0]).toBeCloseTo(z2 as number, 6);
        expect(priceIn(t, (o) => o.zone === 'test-zone-4')?.[0]).toBeCloseTo(z4 as number, 6);
      },
    );

    const partial = (a: NodeOverlaySpec, b: NodeOverlaySpec, pools = [POOL]) => {
      const oa = overlay(
        {
          requirements: [req(IT, 'In', ['default-instance-type', 'small-instance-type', 'gpu-vendor-b-instance-type'])],
          weight: 10,
          ...a,
        },
        'overlay-a',
      );
      const ob = overlay(
        { requirements: [req(IT, 'In', ['small-instance-type', 'gpu-vendor-instance-type'])], weight: 10, ...b },
        'overlay-b',
      );
      return { r: reconcile([oa, ob], RESET_TYPES, pools), oa, ob };
    };
    it.each([
      ['Price', PRICE('382'), PRICE('100')],
      ['PriceAdjustment', ADJUST('-23'), ADJUST('+10')],
    ])('should not partial apply instance types in a nodepool (%s)', (_, a, b) => {
      const { r, oa, ob } = partial(a, b);
      expect([r.validated(oa), r.validated(ob)]).toEqual([false, true]);
      expect(r.types()).toHaveLength(6);
      expect(pricingApplied(r.type('default-instance-type'))).toBe(false);
      expect(pricingApplied(r.type('gpu-vendor-instance-type'))).toBe(true);
      expect(pricingApplied(r.type('gpu-vendor-b-instance-type'))).toBe(false);
      expect(pricingApplied(r.type('small-instance-type'))).toBe(true);
    });
    it.each([
      ['Price', PRICE('382'), PRICE('100')],
      ['PriceAdjustment', ADJUST('+10'), ADJUST('-23')],
    ])('should not partial apply for a subset of nodepools (%s)', (_, a, b) => {
      const { r, oa, ob } = partial(a, b, [POOL, POOL_TWO]);
      expect([r.validated(oa), r.validated(ob)]).toEqual([false, true]);
      for (const pool of [POOL.name, POOL_TWO.name]) {
        expect(pricingApplied(r.type('default-instance-type', pool))).toBe(false);
        expect(pricingApplied(r.type('gpu-vendor-b-instance-type', pool))).toBe(false);
        expect(pricingApplied(r.type('gpu-vendor-instance-type', pool))).toBe(true);
        expect(pricingApplied(r.type('small-instance-type', pool))).toBe(true);
      }
    });
  });

  describe('Capacity', () => {
    const FUSE = { 'smarter-devices/fuse': '1' };
    describe('Requirements', () => {
      it('should only apply override for nodepool that defined in the overlay requirements', () => {
        const r = reconcile(
          [overlay({ requirements: [req(NP, 'In', [POOL.name])], capacity: FUSE, weight: 10 })],
          undefined,
          [POOL, POOL_TWO],
        );
        expect(r.types()[0]?.capacity['smarter-devices/fuse']).toBe(1);
        expect(Object.keys(r.types(POOL_TWO.name)[0]?.capacity ?? {})).not.toContain('smarter-devices/fuse');
      });
      it('should pass with conflicting capcaity update overlays for all nodepools', () => {
        const r = reconcile(
          [
            overlay({ requirements: [req(NP, 'In', [POOL.name])], capacity: FUSE, weight: 10 }),
            overlay({
              requirements: [req(NP, 'In', [POOL_TWO.name])],
              capacity: { 'dumb-devices/bar': '2' },
              weight: 10,
            }),
          ],
          undefined,
          [POOL, POOL_TWO],
        );
        expect(r.types()[0]?.capacity['smarter-devices/fuse']).toBe(1);
        expect(r.types(POOL_TWO.name)[0]?.capacity['dumb-devices/bar']).toBe(2);
      });
      it('should only apply price adjustments for nodeclaim spec labels that defined in the overlay requirements', () => {
        const labelled = { ...POOL_TWO, labels: { 'test-label': 'test-value' } };
        const r = reconcile(
          [overlay({ requirements: [req('test-label', 'In', ['test-value'])], capacity: FUSE, weight: 10 })],
          undefined,
          [POOL, labelled],
        );
        expect(Object.keys(r.types()[0]?.capacity ?? {})).not.toContain('smarter-devices/fuse');
        expect(r.types(POOL_TWO.name)[0]?.capacity['smarter-devices/fuse']).toBe(1);
      });
    });
    it('should not apply capacity adjustments for invalid overlay', async () => {
      const t = createTestbed();
      t.cluster.upsert(
        overlay({
          requirements: [{ key: `test.com.test/test-${'a'.repeat(250)}`, operator: 'Exists' }],
          capacity: FUSE,
          weight: 10,
        }),
      );
      const s = await readSnapshot(t.deps);
      for (const type of s.instanceTypes.get('default') ?? [])
        expect(type.capacity['smarter-devices/fuse']).toBeUndefined();
    });
    it('should not apply capacity adjustments for instances types that do not overlap', () => {
      const r = reconcile([
        overlay({ requirements: [req(IT, 'In', ['default-instance-type-not-found'])], capacity: FUSE, weight: 10 }),
      ]);
      expect(Object.keys(r.types()[0]?.capacity ?? {})).not.toContain('smarter-devices/fuse');
    });
    it('should apply capacity adjustments for instances types', () => {
      const r = reconcile([
        overlay({ requirements: [req(IT, 'In', ['default-instance-type'])], capacity: FUSE, weight: 10 }),
      ]);
      expect(r.types()[0]?.capacity['smarter-devices/fuse']).toBe(1);
    });

    const ZONAL = [
      fake('default-instance-type-zone-one', { offerings: [offering('spot', 'test-zone-1', 1.02)] }),
      fake('default-instance-type-zone-two', { offerings: [offering('on-demand', 'test-zone-2', 2.02)] }),
      fake('default-instance-type-zone-four', { offerings: [offering('reserved', 'test-zone-4', 4.02)] }),
    ];
    const GI = 2 ** 30;
    it('should update capacity for instance types from multiple overlays', () => {
      const r = reconcile(
        [
          overlay({ requirements: [req(ZONE, 'In', ['test-zone-2', 'test-zone-4'])], capacity: FUSE, weight: 10 }),
          overlay({ requirements: [req(CT, 'In', ['spot'])], capacity: { 'hugepages-1Gi': '2Gi' }, weight: 10 }),
        ],
        ZONAL,
      );
      expect(r.types()).toHaveLength(3);
      expect(r.type('default-instance-type-zone-one')?.capacity['hugepages-1Gi']).toBe(2 * GI);
      expect(r.type('default-instance-type-zone-one')?.offerings[0]?.price).toBe(1.02);
      expect(r.type('default-instance-type-zone-two')?.capacity['smarter-devices/fuse']).toBe(1);
      expect(r.type('default-instance-type-zone-two')?.offerings[0]?.price).toBe(2.02);
      expect(r.type('default-instance-type-zone-four')?.capacity['smarter-devices/fuse']).toBe(1);
      expect(r.type('default-instance-type-zone-four')?.offerings[0]?.price).toBe(4.02);
    });
    it('should update capacity for one instance types from multiple overlays', () => {
      const r = reconcile(
        [
          overlay({ requirements: [req(IT, 'In', ['default-instance-type-zone-one'])], capacity: FUSE, weight: 10 }),
          overlay({
            requirements: [req(IT, 'In', ['default-instance-type-zone-one'])],
            capacity: { 'hugepages-1Gi': '2Gi' },
            weight: 10,
          }),
        ],
        ZONAL.slice(0, 1),
      );
      const t = r.type('default-instance-type-zone-one');
      expect(t?.offerings[0]?.price).toBe(1.02);
      expect(t?.capacity['hugepages-1Gi']).toBe(2 * GI);
      expect(t?.capacity['smarter-devices/fuse']).toBe(1);
    });
    it('should update price offerings instance types from multiple overlays with different weights', () => {
      const r = reconcile(
        [
          overlay({ requirements: [req(ZONE, 'In', ['test-zone-2'])], capacity: FUSE, weight: 20 }),
          overlay({
            requirements: [req(ZONE, 'In', ['test-zone-2', 'test-zone-4'])],
            capacity: { 'hugepages-1Gi': '2Gi' },
            weight: 10,
          }),
        ],
        ZONAL,
      );
      expect(r.type('default-instance-type-zone-two')?.capacity['smarter-devices/fuse']).toBe(1);
      expect(r.type('default-instance-type-zone-two')?.offerings[0]?.price).toBe(2.02);
      expect(r.type('default-instance-type-zone-four')?.capacity['hugepages-1Gi']).toBe(2 * GI);
      expect(r.type('default-instance-type-zone-four')?.offerings[0]?.price).toBe(4.02);
    });
    it('should apply higher weight overlay when multiple overlays match the same instance type', () => {
      const a = overlay(
        {
          requirements: [req(IT, 'In', ['default-instance-type'])],
          weight: 10,
          capacity: { 'smarter-devices/fuse': '5' },
        },
        'overlay-a',
      );
      const b = overlay(
        {
          requirements: [req(IT, 'In', ['default-instance-type'])],
          weight: 20,
          capacity: { 'smarter-devices/fuse': '99' },
        },
        'overlay-b',
      );
      const r = reconcile([a, b]);
      expect([r.validated(a), r.validated(b)]).toEqual([true, true]);
      expect(r.types()[0]?.capacity['smarter-devices/fuse']).toBe(99);
    });
    const capPair = (
      pools = [POOL],
      aTypes = ['default-instance-type', 'small-instance-type', 'gpu-vendor-b-instance-type'],
    ) => {
      const a = overlay(
        { requirements: [req(IT, 'In', aTypes)], weight: 10, capacity: { 'smarter-devices/buz': '54' } },
        'overlay-a',
      );
      const b = overlay(
        {
          requirements: [req(IT, 'In', ['small-instance-type', 'gpu-vendor-instance-type'])],
          weight: 10,
          capacity: { 'smarter-devices/buz': '21' },
        },
        'overlay-b',
      );
      return { r: reconcile([a, b], RESET_TYPES, pools), a, b };
    };
    it('should that there is not a partial application for instance types', () => {
      const { r, a, b } = capPair();
      expect([r.validated(a), r.validated(b)]).toEqual([false, true]);
      expect(r.types()).toHaveLength(6);
      expect(capacityApplied(r.type('default-instance-type'))).toBe(false);
      expect(capacityApplied(r.type('gpu-vendor-instance-type'))).toBe(true);
      expect(capacityApplied(r.type('gpu-vendor-b-instance-type'))).toBe(false);
      expect(capacityApplied(r.type('small-instance-type'))).toBe(true);
    });
    it('should that there is not a partial application for nodepools', () => {
      const { r, a, b } = capPair([POOL, POOL_TWO], ['default-instance-type', 'small-instance-type']);
      expect([r.validated(a), r.validated(b)]).toEqual([false, true]);
      for (const pool of [POOL.name, POOL_TWO.name]) {
        expect(capacityApplied(r.type('default-instance-type', pool))).toBe(false);
        expect(capacityApplied(r.type('gpu-vendor-b-instance-type', pool))).toBe(false);
        expect(capacityApplied(r.type('gpu-vendor-instance-type', pool))).toBe(true);
        expect(capacityApplied(r.type('small-instance-type', pool))).toBe(true);
      }
    });
  });

  it('should apply pricing and capacity adjustment from two overlays on the same instance type', () => {
    const r = reconcile([
      overlay({ requirements: [req(IT, 'In', ['default-instance-type'])], priceAdjustment: '+1000.0', weight: 10 }),
      overlay({
        requirements: [req(IT, 'In', ['default-instance-type'])],
        capacity: { 'smarter-devices/fuse': '1' },
        weight: 10,
      }),
    ]);
    expect(r.conflicts).toEqual([]);
    expect(r.types()[0]?.offerings[0]?.price).toBeCloseTo(1001.02, 6);
    expect(r.types()[0]?.capacity['smarter-devices/fuse']).toBe(1);
  });
  it('should have an empty instance types set when cloudprovider does not return instance types', () => {
    const r = reconcile(
      [
        overlay({
          requirements: [req(IT, 'In', ['default-instance-type'])],
          capacity: { 'smarter-devices/fuse': '1' },
          weight: 10,
        }),
      ],
      [],
    );
    expect(r.types()).toEqual([]);
  });
  it('should have an empty instance types set when cloudprovider return an error', () => {
    // A NodePool whose types could not be resolved has no entry (readSnapshot names it in its problems); the overlay
    // step invents none for it.
    const r = applyNodeOverlays(
      [overlay({ capacity: { 'smarter-devices/fuse': '1' }, weight: 10 })],
      [POOL],
      new Map(),
    );
    expect(r.instanceTypes.get(POOL.name)).toBeUndefined();
  });
  it('should not return instance type requirements with nodepool, nodeclass, and custom nodepool labels', () => {
    const labelled = { ...POOL, labels: { 'test-label': 'test-value' } };
    const r = reconcile(
      [
        overlay({
          requirements: [req(IT, 'In', ['default-instance-type'])],
          capacity: { 'smarter-devices/fuse': '1' },
          weight: 10,
        }),
      ],
      undefined,
      [labelled],
    );
    const keys = Object.keys(r.types()[0]?.labels ?? {});
    expect(keys).not.toContain(NP);
    expect(keys).not.toContain('karpenter.k8s.aws/ec2nodeclass');
    expect(keys).not.toContain('test-label');
  });
});
