// kubernetes-sigs/karpenter pkg/controllers/provisioning/suite_test.go, Context("StaticNodePool"), case by case, on
// the test bed with the real provisioning pass. Karpenter's ExpectProvisioned runs only the pod-driven provisioner;
// a Karpless pass also tops static pools up, so "no NodeClaim for the pod" reads as: no claim holds the pod.
import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, staticNodePool, testNodePool } from '../../../testkit/bed';
import { poolClaims, reconcileStatic } from '../../../testkit/static-bed';

describe('StaticNodePool', () => {
  it('should not create NodeClaims for StaticNodePool', async () => {
    const t = createTestbed({ nodePool: staticNodePool(2) });
    t.cluster.addPod(makePod('web-1'));
    const result = await reconcileStatic(t);
    expect(result.unschedulable.map((u) => u.pod)).toEqual(['default/web-1']);
    const claims = await poolClaims(t);
    // Only the pool's replicas, none of them for the pod.
    expect(claims).toHaveLength(2);
    expect(claims.flatMap((c) => c.nominatedPods)).toEqual([]);
  });

  it('should still provision dynamic NodeClaims when there are both Static and Dynamic NodePools', async () => {
    const t = createTestbed({ nodePool: testNodePool('default') });
    t.cluster.upsert(staticNodePool(1));
    t.cluster.addPod(makePod('web-1'));
    const result = await reconcileStatic(t);
    expect(result.unschedulable).toEqual([]);
    const forPod = (await poolClaims(t, 'default')).filter((c) => c.nominatedPods.some((p) => p.name === 'web-1'));
    expect(forPod).toHaveLength(1);
    expect(forPod[0]?.nodePool).toBe('default');
    expect((await poolClaims(t)).flatMap((c) => c.nominatedPods)).toEqual([]);
  });
});
