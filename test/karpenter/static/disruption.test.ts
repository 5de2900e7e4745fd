// kubernetes-sigs/karpenter's static-NodePool cases in its disruption suites, case by case:
// pkg/controllers/disruption/consolidation_test.go and emptiness_test.go (Context "Static NodePool"), on the pure
// planner (shared/disruption/plan.ts) and then through the planning sweep on the test bed; and
// pkg/controllers/nodeclaim/disruption/suite_test.go's static case, on the facts the NodeClaim mirror publishes as
// status conditions (shared/controllers/nodeclaim-mirror.ts).
//
// Each case also runs the same nodes under a dynamic pool, which the planner does take, so a static check that
// passed for another reason (the nodes not being empty, consolidateAfter not yet elapsed) would show.
//
// disruption/validation_test.go has no static case: it only lists StaticDrift among the methods it builds.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import { disruptionSweep } from '../../../shared/controllers/disruption';
import { nodeClaimFacts } from '../../../shared/controllers/nodeclaim-mirror';
import { planDisruption } from '../../../shared/disruption/plan';
import { staticNodePool } from '../../../testkit/bed';
import { disruptionInput, HOUR, node, pool, T0 } from '../../../testkit/disruption';
import { activeClaims, runningStaticBed, settleNodes } from '../../../testkit/static-bed';

/** Karpenter's test.StaticNodePool (`replicas`; undefined leaves it dynamic) with consolidation that would take an
 * empty node at once. */
function staticPool(
  replicas: number | undefined,
  policy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' = 'WhenEmptyOrUnderutilized',
  consolidateAfter = '0s',
): NodePool {
  const p = pool({ name: 'static', policy, consolidateAfter });
  return replicas === undefined ? p : { ...p, spec: { ...p.spec, replicas } };
}

/** Two initialized, empty nodes of the pool, their last pod event an hour ago (Karpenter's NodeClaimsAndNodes(2)). */
const twoEmptyNodes = (p: NodePool) => [
  node('static-a', { type: 'm5.xlarge', pool: p, lastPodEventAt: T0 - HOUR }),
  node('static-b', { type: 'm5.xlarge', pool: p, lastPodEventAt: T0 - HOUR }),
];

const plan = (p: NodePool) => planDisruption(disruptionInput(twoEmptyNodes(p), { nodePools: [p] }));

describe('consolidation_test.go', () => {
  describe('Static NodePool', () => {
    it('should not consolidate static NodePool nodes', async () => {
      expect(plan(staticPool(2)).commands).toEqual([]);
      expect(plan(staticPool(undefined)).commands.length).toBeGreaterThan(0);

      // The disruption controller's sweep on the bed (Karpenter's ExpectSingletonReconciled): nothing is disrupted.
      const bedPool = staticNodePool(2);
      bedPool.spec.disruption = {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '0s',
        budgets: [{ nodes: '100%' }],
      };
      const t = await runningStaticBed(2, bedPool);
      t.clock.advance(HOUR);
      const swept = await disruptionSweep(t.deps);
      expect(swept.plan?.commands).toEqual([]);
      expect(swept.plan?.stats.candidates).toBe(0);
      await settleNodes(t);
      const claims = await activeClaims(t);
      expect(claims.map((c) => c.state)).toEqual(['Initialized', 'Initialized']);
      expect(claims.every((c) => c.disruption === undefined)).toBe(true);
    });
  });
});

describe('emptiness_test.go', () => {
  describe('Static NodePool', () => {
    it('should not consolidate static NodePool nodes', () => {
      // Karpenter asks GetCandidates of emptiness, single- and multi-node consolidation: none. Karpless's one plan
      // runs all three and counts as candidates the nodes it took or judged; a static pool's are neither.
      const staticPlan = plan(staticPool(2));
      expect(staticPlan.stats.candidates).toBe(0);
      expect(staticPlan.rejected).toEqual([]);
      const dynamicPlan = plan(staticPool(undefined));
      expect(dynamicPlan.stats.candidates).toBe(2);
      expect(dynamicPlan.commands.flatMap((c) => c.candidates.map((x) => x.name)).sort()).toEqual([
        'static-a',
        'static-b',
      ]);
    });
  });
});

describe('nodeclaim/disruption/suite_test.go', () => {
  it('should not set consolidatable condition for Static Nodepool', () => {
    // Karpenter's case: a drifted, empty node of a static pool with `replicas: 1`, consolidateAfter 30s, its last pod
    // event five minutes ago: Drifted is set, Consolidatable is not. The template changes here (Karpenter's fake cloud
    // provider reports drift instead).
    const facts = (p: NodePool) => {
      const [n] = [node('static-a', { type: 'm5.xlarge', pool: p, lastPodEventAt: T0 - 5 * 60_000 })];
      const changed: NodePool = {
        ...p,
        spec: { ...p.spec, template: { ...p.spec.template, metadata: { labels: { v: '2' } } } },
      };
      return nodeClaimFacts(disruptionInput(n ? [n] : [], { nodePools: [changed] })).get('claim-static-a');
    };
    expect(facts(staticPool(1, 'WhenEmpty', '30s'))).toEqual({
      drifted: expect.stringContaining('template changed'),
      consolidatable: false,
    });
    // The same node of a dynamic pool is both (Karpenter's "should set multiple disruption conditions
    // simultaneously").
    expect(facts(staticPool(undefined, 'WhenEmpty', '30s'))).toEqual({
      drifted: expect.stringContaining('template changed'),
      consolidatable: true,
    });
  });
});
