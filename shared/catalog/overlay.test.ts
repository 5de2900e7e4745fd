// Mirrors Karpenter's pkg/controllers/nodeoverlay suite ("Price Overlay", "Capacity Overlay", "Weight") and the
// karpenter.sh NodeOverlays page's conflict-resolution example.
import { describe, expect, it } from 'vitest';
import { makeInstanceType } from '../../testkit/instance-types';
import type { NodeOverlay, NodeOverlaySpec } from '../api/nodeoverlay';
import { applyNodeOverlays } from './overlay';
import type { InstanceType } from './types';

const overlay = (name: string, spec: NodeOverlaySpec): NodeOverlay => ({
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name },
  spec,
});

const m5 = makeInstanceType('m5.large', { onDemand: 0.1, spot: { 'us-east-1a': 0.04 } });
const c5 = makeInstanceType('c5.large', { onDemand: 0.2 });
const pools = [{ name: 'default', labels: { team: 'a' } }];
const apply = (overlays: NodeOverlay[], types: InstanceType[] = [m5, c5]) =>
  applyNodeOverlays(overlays, pools, new Map([['default', types]]));
const typeOf = (r: ReturnType<typeof apply>, name: string): InstanceType =>
  (r.instanceTypes.get('default') ?? []).find((t) => t.name === name) as InstanceType;
const prices = (t: InstanceType) => t.offerings.map((o) => `${o.capacityType}/${o.zone}=${o.price.toFixed(4)}`);
const selectM5 = [{ key: 'node.kubernetes.io/instance-type', operator: 'In' as const, values: ['m5.large'] }];

describe('NodeOverlay', () => {
  describe('Price Overlay', () => {
    it('should update the price of an instance type with a price override', () => {
      const r = apply([overlay('o', { requirements: selectM5, price: '5.00' })]);
      expect(typeOf(r, 'm5.large').offerings.every((o) => o.price === 5)).toBe(true);
      expect(typeOf(r, 'c5.large')).toBe(c5);
    });
    it('should apply a positive and negative percentage adjustment', () => {
      expect(
        prices(typeOf(apply([overlay('o', { requirements: selectM5, priceAdjustment: '+10%' })]), 'm5.large')),
      ).toEqual(['spot/us-east-1a=0.0440', 'on-demand/us-east-1a=0.1100', 'on-demand/us-east-1b=0.1100']);
      expect(
        typeOf(apply([overlay('o', { requirements: selectM5, priceAdjustment: '-50%' })]), 'm5.large').offerings[1]
          ?.price,
      ).toBeCloseTo(0.05);
    });
    it('should apply an absolute adjustment and never go below zero', () => {
      expect(typeOf(apply([overlay('o', { priceAdjustment: '+0.5' })]), 'c5.large').offerings[0]?.price).toBeCloseTo(
        0.7,
      );
      expect(typeOf(apply([overlay('o', { priceAdjustment: '-1' })]), 'c5.large').offerings[0]?.price).toBe(0);
    });
    it('should only update offerings that match the capacity type and zone', () => {
      const r = apply([
        overlay('o', {
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
          price: '0.01',
        }),
      ]);
      expect(prices(typeOf(r, 'm5.large'))).toEqual([
        'spot/us-east-1a=0.0100',
        'on-demand/us-east-1a=0.1000',
        'on-demand/us-east-1b=0.1000',
      ]);
    });
    it('should name the overlay and the price before it on each changed offering', () => {
      const r = apply([overlay('savings-plan', { requirements: selectM5, priceAdjustment: '-20%' })]);
      expect(typeOf(r, 'm5.large').offerings[1]?.overlay).toEqual({
        name: 'savings-plan',
        weight: 0,
        adjustment: 'priceAdjustment: -20%',
        basePrice: 0.1,
      });
    });
    it('should match on the NodePool name and template labels', () => {
      const byPool = apply([
        overlay('o', {
          requirements: [{ key: 'karpenter.sh/nodepool', operator: 'In', values: ['other'] }],
          price: '9',
        }),
      ]);
      expect(typeOf(byPool, 'm5.large')).toBe(m5);
      const byLabel = apply([
        overlay('o', { requirements: [{ key: 'team', operator: 'In', values: ['a'] }], price: '9' }),
      ]);
      expect(typeOf(byLabel, 'm5.large').offerings[0]?.price).toBe(9);
    });
    it('should match Gte and Lte on numeric labels', () => {
      const r = apply([
        overlay('o', {
          requirements: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gte', values: ['32'] }],
          price: '9',
        }),
      ]);
      expect(typeOf(r, 'm5.large')).toBe(m5);
    });
  });

  describe('Capacity Overlay', () => {
    it('should add extended resources to capacity and allocatable', () => {
      const r = apply([
        overlay('fuse', { requirements: selectM5, capacity: { 'smarter-devices/fuse': 1, 'hugepages-2Mi': '100Mi' } }),
      ]);
      const t = typeOf(r, 'm5.large');
      expect(t.capacity['smarter-devices/fuse']).toBe(1);
      expect(t.allocatable['hugepages-2Mi']).toBe(100 * 2 ** 20);
      expect(t.capacity.cpu).toBe(m5.capacity.cpu);
      expect(t.capacityOverlays).toEqual({
        'smarter-devices/fuse': { name: 'fuse', weight: 0, quantity: '1' },
        'hugepages-2Mi': { name: 'fuse', weight: 0, quantity: '100Mi' },
      });
    });
  });

  describe('Weight', () => {
    it('merges as the NodeOverlays page example: price from the higher weight, capacity from both', () => {
      const r = apply([
        overlay('overlay-a', {
          weight: 5,
          requirements: selectM5,
          priceAdjustment: '-10%',
          capacity: { 'hugepages-2Mi': '50Mi' },
        }),
        overlay('overlay-b', {
          weight: 10,
          requirements: selectM5,
          priceAdjustment: '-20%',
          capacity: { 'custom-device/gpu': 1 },
        }),
      ]);
      const t = typeOf(r, 'm5.large');
      expect(t.offerings[1]?.price).toBeCloseTo(0.08);
      expect(t.offerings[1]?.overlay?.name).toBe('overlay-b');
      expect(t.capacity['hugepages-2Mi']).toBe(50 * 2 ** 20);
      expect(t.capacity['custom-device/gpu']).toBe(1);
      expect(r.conflicts).toEqual([]);
    });
    it('the higher weight wins a capacity resource both set', () => {
      const r = apply([
        overlay('low', { weight: 1, capacity: { 'example.com/dev': 1 } }),
        overlay('high', { weight: 2, capacity: { 'example.com/dev': 4 } }),
      ]);
      expect(typeOf(r, 'c5.large').capacity['example.com/dev']).toBe(4);
    });
    it('treats a missing weight as 0', () => {
      const r = apply([overlay('unweighted', { price: '1' }), overlay('weighted', { weight: 1, price: '2' })]);
      expect(typeOf(r, 'c5.large').offerings[0]?.price).toBe(2);
    });
    it('should fail validation when two overlays of the same weight price the same offering', () => {
      const r = apply([
        overlay('a-overlay', { weight: 3, requirements: selectM5, price: '1' }),
        overlay('b-overlay', { weight: 3, price: '2' }),
      ]);
      // b-overlay comes first (later in the alphabet); a-overlay conflicts with it and is applied nowhere.
      expect(r.conflicts.map((c) => c.overlay)).toEqual(['a-overlay']);
      expect(typeOf(r, 'm5.large').offerings.every((o) => o.price === 2)).toBe(true);
    });
    it('should fail validation when two overlays of the same weight set the same resource', () => {
      const r = apply([
        overlay('a', { capacity: { 'example.com/dev': 1 } }),
        overlay('b', { capacity: { 'example.com/dev': 2 } }),
      ]);
      expect(r.conflicts.map((c) => c.overlay)).toEqual(['a']);
      expect(typeOf(r, 'c5.large').capacity['example.com/dev']).toBe(2);
    });
    it('should not conflict when the same-weight overlays select different types', () => {
      const r = apply([
        overlay('a', { requirements: selectM5, price: '1' }),
        overlay('b', {
          requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c5.large'] }],
          price: '2',
        }),
      ]);
      expect(r.conflicts).toEqual([]);
    });
  });
});
