// kubernetes-sigs/karpenter pkg/controllers/disruption/drift_test.go and the eventual-disruption cases of
// suite_test.go, on the scenario runner. Drift here is caused the way it happens in a cluster: a NodePool patch, or a
// change in the cloud (see the cloud steps).
import { describe, expect, it } from 'vitest';
import {
  annotate,
  apply,
  deployment,
  disrupted,
  events,
  keepReasons,
  liveClaims,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodePool,
  offset,
  type PoolOptions,
  pdb,
  replacementsFor,
  run,
  scale,
  scenario,
  step,
} from '../../../testkit/karpenter';

const DND = { 'karpenter.sh/do-not-disrupt': 'true' };
const POOL = { 'karpenter.sh/nodepool': 'general' };
const relabel = (at: number, release = 'v2') =>
  step(at, {
    type: 'patch',
    target: { kind: 'NodePool', namespace: '', name: 'general' },
    mergePatch: { spec: { template: { metadata: { labels: { release } } } } },
  });

/** One m5.large node holding `web` (1 pod), drifted by a NodePool label change at 5m. */
async function driftOne(
  pool: PoolOptions,
  extra: Record<string, unknown>[] = [],
  annotations?: Record<string, string>,
) {
  return run(
    scenario(30 * MINUTE, [
      step(
        0,
        apply(
          nodePool({ types: ['m5.large'], consolidateAfter: 'Never', ...pool }),
          nodeClass(),
          deployment('web', 1, { cpu: '1', ...(annotations ? { annotations } : {}) }),
          ...extra,
        ),
      ),
      relabel(5 * MINUTE),
    ]),
  );
}

describe('suite_test.go (eventual disruption: drift)', () => {
  it('should consider candidates that have do-not-disrupt pods scheduled with a terminationGracePeriod set for eventual disruption', async () => {
    const r = await driftOne({ terminationGracePeriod: '5m' }, [], DND);
    const drifted = disrupted(r, 'Drifted');
    expect(drifted).toHaveLength(1);
    // The drain waits on the pod until the claim's grace period, then the node goes with it.
    const terminated = events(r, 'Terminated').find((e) => e.nodeClaim === drifted[0]?.nodeClaim);
    expect(terminated).toBeDefined();
    expect(offset(terminated as never) - offset(drifted[0] as never)).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(replacementsFor(r, 'Drifted')).toHaveLength(1);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('should consider candidates that have PDB-blocked pods scheduled with a terminationGracePeriod set for eventual disruption', async () => {
    const r = await driftOne({ terminationGracePeriod: '5m' }, [pdb('web', 'web', { maxUnavailable: 0 })]);
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect(replacementsFor(r, 'Drifted')).toHaveLength(1);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('should not consider candidates that have do-not-disrupt pods scheduled without a terminationGracePeriod set for eventual disruption', async () => {
    const r = await driftOne({}, [], DND);
    expect(disrupted(r)).toEqual([]);
    const [claim] = await liveClaims(r);
    expect((await keepReasons(r, claim?.name ?? '')).join('\n')).toMatch(
      /drifted .* but pod default\/web-\S+ has karpenter.sh\/do-not-disrupt/,
    );
  });

  it('should not consider candidates that have PDB-blocked pods scheduled without a terminationGracePeriod set for eventual disruption', async () => {
    const r = await driftOne({}, [pdb('web', 'web', { maxUnavailable: 0 })]);
    expect(disrupted(r)).toEqual([]);
    const [claim] = await liveClaims(r);
    expect((await keepReasons(r, claim?.name ?? '')).join('\n')).toMatch(/PodDisruptionBudget default\/web allows 0/);
  });
});

describe('drift_test.go', () => {
  it('Drift: should ignore nodes with the karpenter.sh/do-not-disrupt annotation set to true (template annotation, even with a terminationGracePeriod)', async () => {
    const r = await driftOne({ terminationGracePeriod: '5m', annotations: DND });
    expect(disrupted(r)).toEqual([]);
  });

  it('Drift: should replace drifted nodes', async () => {
    const r = await driftOne({});
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect(replacementsFor(r, 'Drifted')).toHaveLength(1);
    const nodes = await r.world.cluster.listNodes();
    expect(nodes.map((n) => n.metadata.labels?.release)).toEqual(['v2']);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });
});

describe('drift_test.go Drift (more)', () => {
  it('Drift: should delete drifted nodes with the karpenter.sh/do-not-disrupt annotation set to false', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web', 1, { cpu: '1' }),
          ),
        ),
        step(4 * MINUTE, annotate({ kind: 'Node', selector: POOL }, { 'karpenter.sh/do-not-disrupt': 'false' })),
        relabel(5 * MINUTE),
      ]),
    );
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
  });

  it('Drift: should ignore nodes with the karpenter.sh/do-not-disrupt annotation set to true (on the Node)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web', 1, { cpu: '1' }),
          ),
        ),
        step(4 * MINUTE, annotate({ kind: 'Node', selector: POOL }, { 'karpenter.sh/do-not-disrupt': 'true' })),
        relabel(5 * MINUTE),
      ]),
    );
    expect(disrupted(r)).toEqual([]);
  });

  it('Drift: should not drift nodes with pods that have a duration-based do-not-disrupt annotation that is still active', async () => {
    const r = await driftOne({}, [], { 'karpenter.sh/do-not-disrupt': '2h' });
    expect(disrupted(r)).toEqual([]);
  });

  it('Drift: should not drift nodes until the duration-based do-not-disrupt grace period expires (10m from the pod start)', async () => {
    const r = await driftOne({}, [], { 'karpenter.sh/do-not-disrupt': '10m' });
    const [d] = disrupted(r, 'Drifted');
    expect(d).toBeDefined();
    expect(offset(d as never)).toBeGreaterThanOrEqual(10 * MINUTE);
  });

  it('Drift: should drift nodes with pods that have an invalid do-not-disrupt annotation format', async () => {
    const r = await driftOne({}, [], { 'karpenter.sh/do-not-disrupt': 'invalid-format' });
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
  });

  it('Drift: should delete drifted nodes when they are empty and consolidation is disabled', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never' }),
            nodeClass(),
            deployment('web', 1, { cpu: '1' }),
          ),
        ),
        step(3 * MINUTE, scale('web', 0)),
        relabel(5 * MINUTE),
      ]),
    );
    expect(disrupted(r, 'Drifted')).toHaveLength(1);
    expect(replacementsFor(r, 'Drifted')).toEqual([]);
    expect(await liveClaims(r)).toEqual([]);
  });

  it('Drift: should drift empty nodes before non-empty nodes (budget nodes: 1)', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never', budgets: [{ nodes: '1' }] }),
            nodeClass(),
            deployment('web', 2, { cpu: '1' }),
            deployment('idle', 1, { cpu: '1' }),
          ),
        ),
        step(3 * MINUTE, scale('idle', 0)),
        relabel(5 * MINUTE),
      ]),
    );
    const drifted = disrupted(r, 'Drifted');
    expect(drifted.length).toBeGreaterThanOrEqual(2);
    expect(replacementsFor(r, 'Drifted').length).toBe(drifted.length - 1);
    // The first drifted node is the empty one: it needs no replacement.
    const first = replacementsFor(r, 'Drifted')[0];
    expect(offset(first as never)).toBeGreaterThan(offset(drifted[0] as never));
  });
});

describe('drift_test.go Budgets', () => {
  it('should only consider 3 nodes allowed to be disrupted because of budgets (nodes: 3 of 5)', async () => {
    const r = await run(
      scenario(12 * MINUTE, [
        step(
          0,
          apply(
            nodePool({ types: ['m5.large'], consolidateAfter: 'Never', budgets: [{ nodes: '3' }] }),
            nodeClass(),
            deployment('web', 5, { cpu: '1' }),
          ),
        ),
        relabel(5 * MINUTE),
      ]),
    );
    const drifted = disrupted(r, 'Drifted');
    const first = drifted.filter((e) => e.at === drifted[0]?.at);
    expect(first).toHaveLength(3);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('budgets: nodes 0 for Drifted holds drift entirely', async () => {
    const r = await driftOne({ budgets: [{ nodes: '0', reasons: ['Drifted'] }] });
    expect(disrupted(r)).toEqual([]);
  });
});
