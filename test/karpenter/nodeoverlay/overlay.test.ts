// kubernetes-sigs/karpenter pkg/controllers/nodeoverlay/suite_test.go ("Validation", "Instance Type Controller",
// "Failure Isolation") and store_test.go, case by case, on Karpless's one overlay step (shared/catalog/overlay.ts,
// applied by readSnapshot). Karpenter's fake cloud provider becomes a few fixture types with its names, prices and
// offerings; Karpenter's ValidationSucceeded=False (reason Conflict or RuntimeValidation) is an entry in the
// conflicts Karpless reports, and an overlay without one is applied. Karpless has no store filled by a periodic
// controller: overlays are applied on every read of the cluster, so the store's "unevaluated NodePool" error and the
// 6h requeue become the departures asserted under "Failure Isolation".
import { describe, expect, it } from 'vitest';
import type { NodeOverlay, NodeOverlaySpec } from '../../../shared/api/nodeoverlay';
import { applyNodeOverlays, type OverlayPool } from '../../../shared/catalog/overlay';
import type { InstanceType, Offering } from '../../../shared/catalog/types';
import { readSnapshot } from '../../../shared/controllers/snapshot';
import { createTestbed, testNodePool } from '../../../testkit/bed';
import { instanceType } from '../../../testkit/instance-types';

const IT = 'node.kubernetes.io/instance-type';
const CT = 'karpenter.sh/capacity-type';
const ZONE = 'topology.kubernetes.io/zone';
const NP = 'karpenter.sh/nodepool';

const offering = (capacityType: Offering['capacityType'], zone: string, price: number): Offering => ({
  capacityType,
  zone,
  price,
  available: true,
});

/** fake.NewInstanceType: one spot offering in test-zone-1 at 1.02 unless given; amd64 linux unless given. */
function fake(name: string, o: { offerings?: Offering[]; arch?: string; os?: string } = {}): InstanceType {
  return instanceType({
    name,
    vcpu: 4,
    memoryMiB: 4096,
    capacity: { cpu: 4000, memory: 4096 * 2 ** 20, pods: 110 },
    offerings: o.offerings ?? [offering('spot', 'test-zone-1', 1.02)],
    labels: { [IT]: name, 'kubernetes.io/arch': o.arch ?? 'amd64', 'kubernetes.io/os': o.os ?? 'linux' },
  });
}

/** cloudProvider.Reset()'s six types. */
const FAKE_SET = [
  'default-instance-type',
  'small-instance-type',
  'gpu-vendor-instance-type',
  'gpu-vendor-b-instance-type',
  'single-pod-instance-type',
].map((n) => fake(n));
const RESET_TYPES = [...FAKE_SET, fake('arm-instance-type', { arch: 'arm64' })];

/** The Offering Requirements context's type: four offerings across zones and capacity types. */
const FOUR_OFFERINGS = fake('default-instance-type', {
  offerings: [
    offering('spot', 'test-zone-1', 1.02),
    offering('on-demand', 'test-zone-2', 2.02),
    offering('spot', 'test-zone-3', 3.02),
    offering('reserved', 'test-zone-4', 4.02),
  ],
});

let seq = 0;
/** test.NodeOverlay: a random name unless given. */
function overlay(
  spec: NodeOverlaySpec,
  name = `overlay-${++seq}-${Math.random().toString(36).slice(2, 7)}`,
): NodeOverlay {
  return { apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name }, spec };
}
const req = (key: string, operator: 'In' | 'NotIn' | 'Exists', values?: string[]) => ({
  key,
  operator,
  ...(values ? { values } : {}),
});

const POOL: OverlayPool = { name: 'default' };
const POOL_TWO: OverlayPool = { name: 'nodepool-two' };

/** The ExpectReconciled + store.ApplyAll of one test: every pool sees `types` (as Karpenter's fake returns them). */
function reconcile(overlays: NodeOverlay[], types: InstanceType[] = [fake('default-instance-type')], pools = [POOL]) {
  const r = applyNodeOverlays(overlays, pools, new Map(pools.map((p) => [p.name, types])));
  const conflicted = new Set(r.conflicts.map((c) => c.overlay));
  return {
    types: (pool = POOL.name) => r.instanceTypes.get(pool) ?? [],
    type: (name: string, pool = POOL.name) => (r.instanceTypes.get(pool) ?? []).find((t) => t.name === name),
    /** StatusConditions().IsTrue(ValidationSucceeded). */
    validated: (o: NodeOverlay) => !conflicted.has(o.metadata.name),
    conflicts: r.conflicts,
  };
}
const priceIn = (t: InstanceType | undefined, pred: (o: Offering) => boolean) =>
  t?.offerings.filter(pred).map((o) => o.price);
const pricingApplied = (t: InstanceType | undefined) => t?.offerings.some((o) => o.overlay !== undefined) ?? false;
const capacityApplied = (t: InstanceType | undefined) => Object.keys(t?.capacityOverlays ?? {}).length > 0;

/** Karpenter's DescribeTable entries: a price, and a priceAdjustment, with the value each leads to. */
const PRICE = (price: string): NodeOverlaySpec => ({ price });
const ADJUST = (priceAdjustment: string): NodeOverlaySpec => ({ priceAdjustment });

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
