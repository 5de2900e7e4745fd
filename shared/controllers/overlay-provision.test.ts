// NodeOverlays through the real provisioning use-case on the simulated world: a price overlay changes which type is
// launched, and a capacity overlay lets a pod asking for an extended resource get a node (Karpenter's nodeoverlay
// suite, "should schedule on the overlaid instance type" and "should add extended resources").
import { describe, expect, it } from 'vitest';
import { createTestbed, makePod } from '../../testkit/bed';
import type { NodeOverlay, NodeOverlaySpec } from '../api/nodeoverlay';
import { provision } from './provision';

const overlay = (name: string, spec: NodeOverlaySpec): NodeOverlay => ({
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name },
  spec,
});

describe('NodeOverlay in provisioning', () => {
  it('should launch the type a price overlay makes cheapest', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-1', { cpu: '500m' }));
    t.cluster.upsert(
      overlay('m5-discount', {
        requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.xlarge'] }],
        price: '0.001',
      }),
    );
    const result = await provision(t.deps, { trigger: 'PodsPending' });
    expect(result.launched).toHaveLength(1);
    const [claim] = await t.store.list({});
    expect(claim?.instanceType).toBe('m5.xlarge');
  });

  it('should schedule a pod requesting an extended resource only with a capacity overlay', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('fuse-1', { cpu: '500m', resources: { 'smarter-devices/fuse': '1' } }));
    const without = await provision(t.deps, { trigger: 'PodsPending' });
    expect(without.created).toEqual([]);
    expect(without.unschedulable).toHaveLength(1);
    t.cluster.upsert(overlay('fuse', { capacity: { 'smarter-devices/fuse': 1 } }));
    const withOverlay = await provision(t.deps, { trigger: 'PodsPending' });
    expect(withOverlay.launched).toHaveLength(1);
    await t.settle(90_000);
    expect(t.cluster.getPod('default/fuse-1')?.spec.nodeName).toBeDefined();
  });

  it('leaves a same-weight conflicting overlay out', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-1', { cpu: '500m' }));
    t.cluster.upsert(
      overlay('a', {
        price: '0.001',
        requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.xlarge'] }],
      }),
    );
    t.cluster.upsert(overlay('b', { price: '9' }));
    await provision(t.deps, { trigger: 'PodsPending' });
    const [claim] = await t.store.list({});
    expect(claim?.instanceType).not.toBe('m5.xlarge');
  });
});
