// Karpenter's nodeoverlay suite fixtures (pkg/controllers/nodeoverlay/suite_test.go) for test/karpenter/nodeoverlay:
// its fake cloud provider's types with their names, prices and offerings, test.NodeOverlay, and one "reconcile"
// that applies overlays as readSnapshot does. Karpenter's ValidationSucceeded=False (Conflict) is an entry in the
// conflicts Karpless reports; an overlay without one is applied.
import type { NodeOverlay, NodeOverlaySpec } from '../shared/api/nodeoverlay';
import { applyNodeOverlays, type OverlayPool } from '../shared/catalog/overlay';
import type { InstanceType, Offering } from '../shared/catalog/types';
import { instanceType } from './instance-types';

export const IT = 'node.kubernetes.io/instance-type';
export const CT = 'karpenter.sh/capacity-type';
export const ZONE = 'topology.kubernetes.io/zone';
export const NP = 'karpenter.sh/nodepool';

export const offering = (capacityType: Offering['capacityType'], zone: string, price: number): Offering => ({
  capacityType,
  zone,
  price,
  available: true,
});

/** fake.NewInstanceType: one spot offering in test-zone-1 at 1.02 unless given; amd64 linux unless given. */
export function fake(name: string, o: { offerings?: Offering[]; arch?: string; os?: string } = {}): InstanceType {
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
export const FAKE_SET = [
  'default-instance-type',
  'small-instance-type',
  'gpu-vendor-instance-type',
  'gpu-vendor-b-instance-type',
  'single-pod-instance-type',
].map((n) => fake(n));
export const RESET_TYPES = [...FAKE_SET, fake('arm-instance-type', { arch: 'arm64' })];

/** The Offering Requirements context's type: four offerings across zones and capacity types. */
export const FOUR_OFFERINGS = fake('default-instance-type', {
  offerings: [
    offering('spot', 'test-zone-1', 1.02),
    offering('on-demand', 'test-zone-2', 2.02),
    offering('spot', 'test-zone-3', 3.02),
    offering('reserved', 'test-zone-4', 4.02),
  ],
});

let seq = 0;
/** test.NodeOverlay: a random name unless given. */
export function overlay(
  spec: NodeOverlaySpec,
  name = `overlay-${++seq}-${Math.random().toString(36).slice(2, 7)}`,
): NodeOverlay {
  return { apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name }, spec };
}
export const req = (key: string, operator: 'In' | 'NotIn' | 'Exists', values?: string[]) => ({
  key,
  operator,
  ...(values ? { values } : {}),
});

export const POOL: OverlayPool = { name: 'default' };
export const POOL_TWO: OverlayPool = { name: 'nodepool-two' };

/** The ExpectReconciled + store.ApplyAll of one test: every pool sees `types` (as Karpenter's fake returns them). */
export function reconcile(
  overlays: NodeOverlay[],
  types: InstanceType[] = [fake('default-instance-type')],
  pools = [POOL],
) {
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
export const priceIn = (t: InstanceType | undefined, pred: (o: Offering) => boolean) =>
  t?.offerings.filter(pred).map((o) => o.price);
export const pricingApplied = (t: InstanceType | undefined) =>
  t?.offerings.some((o) => o.overlay !== undefined) ?? false;
export const capacityApplied = (t: InstanceType | undefined) => Object.keys(t?.capacityOverlays ?? {}).length > 0;

/** Karpenter's DescribeTable entries: a price, and a priceAdjustment, with the value each leads to. */
export const PRICE = (price: string): NodeOverlaySpec => ({ price });
export const ADJUST = (priceAdjustment: string): NodeOverlaySpec => ({ priceAdjustment });
