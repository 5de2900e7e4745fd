// kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation_test.go, on the scenario runner.
import { describe, expect, it } from 'vitest';
import { DISRUPTION_SETTINGS_DEFAULTS } from '../../../shared/disruption/settings';
import {
  apply,
  deployment,
  disrupted,
  events,
  forEachNode,
  HOUR,
  keepReasons,
  liveClaims,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodePool,
  pdb,
  replacementsFor,
  run,
  scale,
  scenario,
  seed,
  seededNode,
  seededPod,
  step,
  unconsolidatable,
} from '../../../testkit/karpenter';

const spotPool = () => nodePool({ capacityTypes: ['spot'], consolidateAfter: '1m' });

/** One spot node sized for 3 pods of 2 cpu, left with one at 5m: a cheaper spot node would hold it. */
async function underusedSpotNode(spotToSpotConsolidation: boolean) {
  return run(
    scenario(
      20 * MINUTE,
      [step(0, apply(spotPool(), nodeClass(), deployment('web', 3, { cpu: '2' }))), step(5 * MINUTE, scale('web', 1))],
      { settings: { ...DISRUPTION_SETTINGS_DEFAULTS, spotToSpotConsolidation } },
    ),
  );
}

describe('consolidation_test.go', () => {
  it('Replace: cannot replace spot with spot if the spotToSpotConsolidation is disabled', async () => {
    const r = await underusedSpotNode(false);
    expect(disrupted(r)).toEqual([]);
    expect(replacementsFor(r, 'Underutilized')).toEqual([]);
    const [claim] = await liveClaims(r);
    expect(claim?.capacityType).toBe('spot');
    expect((await keepReasons(r, claim?.name ?? '')).join('\n')).toContain(
      "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    );
  });

  it('Replace: cannot replace spot with spot if less than minimum InstanceTypes flexibility (the gate on, 4 types)', async () => {
    const r = await underusedSpotNode(true);
    expect(replacementsFor(r, 'Underutilized')).toEqual([]);
    const [claim] = await liveClaims(r);
    expect((await keepReasons(r, claim?.name ?? '')).join('\n')).toMatch(
      /spot-to-spot replacement needs at least 15 cheaper instance types, found \d/,
    );
  });

  it('Delete: can delete nodes (spot nodes are deleted whatever the gate)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ capacityTypes: ['spot'], consolidateAfter: '1m', types: ['m5.large'] }),
            nodeClass(),
            deployment('web', 3, { cpu: '1' }),
          ),
        ),
        step(5 * MINUTE, scale('web', 1)),
      ]),
    );
    expect(disrupted(r).length).toBe(2);
    expect(replacementsFor(r, 'Underutilized')).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(1);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });
});

/** Two m5.large nodes, each holding a 1200m `big` pod and a 600m `web` pod; `big` goes at 5m, so the two `web`
 * pods fit on one node and the other can be deleted (unless something blocks it). */
async function underused(extra: Record<string, unknown>[] = [], annotations?: Record<string, string>, pool = {}) {
  return run(
    scenario(20 * MINUTE, [
      step(
        0,
        apply(
          nodePool({ types: ['m5.large'], consolidateAfter: '1m', ...pool }),
          nodeClass(),
          deployment('big', 2, { cpu: '1200m' }),
          deployment('web', 2, { cpu: '600m', ...(annotations ? { annotations } : {}) }),
          ...extra,
        ),
      ),
      step(5 * MINUTE, scale('big', 0)),
    ]),
  );
}

/** Upstream's two nodes: `a` runs two pods, `b` runs `blocked` (and `extra`, e.g. its PDB). Either node's pods fit on
 * the other, so one can go; `b` is the one whose pod blocks it. */
async function blockedPair(blocked: Record<string, unknown>, ...extra: Record<string, unknown>[]) {
  return run(
    scenario(10 * MINUTE, [
      step(0, apply(nodePool({ types: ['m5.large'], consolidateAfter: '0s' }), nodeClass(), ...extra)),
      step(
        0,
        seed(
          seededNode('a', { age: HOUR }),
          seededNode('b', { age: HOUR }),
          seededPod('a1', 'a'),
          seededPod('a2', 'a'),
          blocked,
        ),
      ),
    ]),
  );
}

describe('consolidation_test.go Delete (two half-empty m5.large nodes fold into one)', () => {
  it('Delete: can delete nodes', async () => {
    const r = await underused();
    expect(events(r, 'Launched')).toHaveLength(2);
    expect(disrupted(r, 'Underutilized')).toHaveLength(1);
    expect(await liveClaims(r)).toHaveLength(1);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('Delete: can delete nodes, considers karpenter.sh/do-not-disrupt set to true on pods', async () => {
    // As upstream: two pods on `a`, one on `b` that do-not-disrupt blocks; `a` goes, its pods move to `b`.
    const r = await blockedPair(seededPod('b1', 'b', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }));
    expect(disrupted(r).map((e) => e.reason)).toEqual(['Underutilized']);
    expect((await liveClaims(r)).map((c) => c.nodeName)).toEqual(['b']);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it("Delete: does not consolidate nodes with karpenter.sh/do-not-disrupt set to true on pods when the NodePool's TerminationGracePeriod is not nil", async () => {
    const r = await underused([], { 'karpenter.sh/do-not-disrupt': 'true' }, { terminationGracePeriod: '5m' });
    expect(disrupted(r)).toEqual([]);
  });

  it('Delete: can delete nodes, considers PDB', async () => {
    // As upstream: only `b`'s pod is covered by a PDB that allows no disruption; `a` goes, its pods move to `b`.
    const r = await blockedPair(
      seededPod('b1', 'b', { labels: { app: 'guarded' } }),
      pdb('guarded', 'guarded', { maxUnavailable: 0 }),
    );
    expect(disrupted(r).map((e) => e.reason)).toEqual(['Underutilized']);
    expect((await liveClaims(r)).map((c) => c.nodeName)).toEqual(['b']);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it("Delete: does not consolidate nodes with pods with blocking PDBs when the NodePool's TerminationGracePeriod is not nil", async () => {
    const r = await underused([pdb('web', 'web', { maxUnavailable: 0 })], undefined, { terminationGracePeriod: '5m' });
    expect(disrupted(r)).toEqual([]);
  });

  it('Delete: a PDB that allows one disruption does not block (maxUnavailable 1)', async () => {
    const r = await underused([pdb('web', 'web', { maxUnavailable: 1 })]);
    expect(disrupted(r, 'Underutilized')).toHaveLength(1);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('Delete: does not consolidate nodes with pods that have a duration-based do-not-disrupt annotation that is still active', async () => {
    const r = await underused([], { 'karpenter.sh/do-not-disrupt': '2h' });
    expect(disrupted(r)).toEqual([]);
  });

  it('Delete: can consolidate nodes after duration-based do-not-disrupt annotation expires', async () => {
    const r = await underused([], { 'karpenter.sh/do-not-disrupt': '5m' });
    const [d] = disrupted(r, 'Underutilized');
    expect(d).toBeDefined();
  });

  it('Delete: can delete nodes, considers invalid do-not-disrupt annotation format as not blocking', async () => {
    const r = await underused([], { 'karpenter.sh/do-not-disrupt': 'soon' });
    expect(disrupted(r, 'Underutilized')).toHaveLength(1);
  });

  it('Events: should not fire an event for ConsolidationDisabled when the NodePool has consolidation set to WhenEmptyOrUnderutilized', async () => {
    const r = await underused();
    expect(unconsolidatable(r)).toEqual([]);
  });

  it('Events: should fire an event for ConsolidationDisabled when the NodePool has consolidation set to WhenEmpty', async () => {
    const r = await underused([], undefined, { policy: 'WhenEmpty' });
    expect(disrupted(r)).toEqual([]);
    // Karpenter's Unconsolidatable event on each Node and NodeClaim of the pool (upstream counts the calls for its
    // one node: two methods, two objects each).
    expect(unconsolidatable(r)).toHaveLength(4);
    expect(unconsolidatable(r)).toEqual(
      await forEachNode(r, 'NodePool "general" has consolidation policy WhenEmpty, but node is not empty'),
    );
  });

  it("Events: should fire an event for ConsolidationDisabled when the NodePool has consolidateAfter set to 'Never'", async () => {
    const r = await underused([], undefined, { consolidateAfter: 'Never' });
    expect(disrupted(r)).toEqual([]);
    expect(unconsolidatable(r)).toHaveLength(4);
    expect(unconsolidatable(r)).toEqual(await forEachNode(r, 'NodePool "general" has consolidation disabled'));
  });

  it('Budgets: should allow no nodes from each nodePool to be deleted', async () => {
    // As upstream: ten NodePools with a 0% budget, three idle nodes each; none goes.
    const names = Array.from({ length: 10 }, (_, i) => `pool-${i}`);
    const pools = names.map((name) =>
      nodePool({ name, types: ['m5.large'], consolidateAfter: '0s', budgets: [{ nodes: '0%' }] }),
    );
    const nodes = names.flatMap((pool) => [0, 1, 2].map((i) => seededNode(`${pool}-${i}`, { pool, age: HOUR })));
    const r = await run(scenario(10 * MINUTE, [step(0, apply(...pools, nodeClass())), step(0, seed(...nodes))]));
    expect(disrupted(r)).toEqual([]);
    expect(await liveClaims(r)).toHaveLength(30);
  });
});

describe('consolidation_test.go Replace', () => {
  it('Replace: can replace node (on-demand, a cheaper type holds its pods)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(0, apply(nodePool({ consolidateAfter: '1m' }), nodeClass(), deployment('web', 3, { cpu: '2' }))),
        step(5 * MINUTE, scale('web', 1)),
      ]),
    );
    expect(replacementsFor(r, 'Underutilized')).toHaveLength(1);
    const [claim] = await liveClaims(r);
    expect(claim?.instanceType).toBe('m5.xlarge');
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it("won't replace on-demand node if on-demand replacement is more expensive (nothing cheaper holds the pods)", async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ consolidateAfter: '1m', types: ['m5.xlarge', 'm5.2xlarge'] }),
            nodeClass(),
            deployment('web', 1, { cpu: '3' }),
          ),
        ),
      ]),
    );
    expect(disrupted(r)).toEqual([]);
  });
});
