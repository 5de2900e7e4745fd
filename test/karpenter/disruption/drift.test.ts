// kubernetes-sigs/karpenter pkg/controllers/disruption/drift_test.go and the eventual-disruption cases of
// suite_test.go, on the scenario runner. Drift here is caused the way it happens in a cluster: a NodePool patch, or a
// change in the cloud (see the cloud steps).
import { describe, expect, it } from 'vitest';
import {
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
  scenario,
  step,
} from '../../../testkit/karpenter';

const DND = { 'karpenter.sh/do-not-disrupt': 'true' };
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
