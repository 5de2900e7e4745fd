// kubernetes-sigs/karpenter pkg/controllers/nodeclaim/expiration/suite_test.go and the static-drift table of
// pkg/controllers/nodeclaim/disruption/drift_test.go, on the scenario runner. A node lives by the expireAfter and
// terminationGracePeriod stamped on its NodeClaim at launch; changing them on the NodePool only drifts it.
import { describe, expect, it } from 'vitest';
import {
  allClaims,
  apply,
  deployment,
  disrupted,
  events,
  keepReasons,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodePool,
  offset,
  replacementsFor,
  run,
  scenario,
  step,
} from '../../../testkit/karpenter';

const patchPool = (at: number, spec: Record<string, unknown>) =>
  step(at, {
    type: 'patch',
    target: { kind: 'NodePool', namespace: '', name: 'general' },
    mergePatch: { spec: { template: { spec } } },
  });

describe('expiration/suite_test.go', () => {
  it('Expiration: should not remove the NodeClaims when expiration is disabled', async () => {
    const r = await run(
      scenario(40 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.large'], expireAfter: 'Never' }), nodeClass(), deployment('web', 1))),
      ]),
    );
    expect(disrupted(r)).toEqual([]);
    expect((await allClaims(r)).map((c) => c.expireAfter)).toEqual(['Never']);
  });

  it('Expiration: should delete NodeClaims once they are expired (replacing them first is not required: forceful)', async () => {
    const r = await run(
      scenario(40 * MINUTE, [
        step(0, apply(nodePool({ types: ['m5.large'], expireAfter: '20m' }), nodeClass(), deployment('web', 1))),
      ]),
    );
    const expired = disrupted(r, 'Expired');
    expect(expired.length).toBeGreaterThanOrEqual(1);
    expect(offset(expired[0] as never)).toBeGreaterThanOrEqual(20 * MINUTE);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });
});

describe('nodeclaim/disruption/drift_test.go (NodePool Static Drift)', () => {
  it('should detect drift on changes to the static fields (ExpireAfter): a shorter expireAfter drifts nodes within budgets instead of expiring them', async () => {
    const pool = nodePool({
      types: ['m5.large'],
      expireAfter: '720h',
      consolidateAfter: 'Never',
      budgets: [{ nodes: '0', reasons: ['Drifted'] }],
    });
    const r = await run(
      scenario(25 * MINUTE, [
        step(0, apply(pool, nodeClass(), deployment('web', 3, { cpu: '1' }))),
        patchPool(5 * MINUTE, { expireAfter: '10m' }),
      ]),
    );
    // Read from the NodePool, all three would expire together at 10m: forceful, past the Drifted budget of 0.
    expect(disrupted(r)).toEqual([]);
    const claims = await allClaims(r);
    expect(claims.map((c) => [c.state, c.expireAfter])).toEqual([
      ['Initialized', '720h'],
      ['Initialized', '720h'],
      ['Initialized', '720h'],
    ]);
    for (const c of claims) {
      expect((await keepReasons(r, c.name)).join('\n')).toMatch(
        /drifted \(.*template changed.*\) but disruption budget/,
      );
    }
  });

  it('should detect drift on changes to the static fields (ExpireAfter): replacements carry the new expireAfter', async () => {
    const pool = nodePool({
      types: ['m5.large'],
      expireAfter: '720h',
      consolidateAfter: 'Never',
      budgets: [{ nodes: '1' }],
    });
    const r = await run(
      scenario(12 * MINUTE, [
        step(0, apply(pool, nodeClass(), deployment('web', 3, { cpu: '1' }))),
        patchPool(5 * MINUTE, { expireAfter: '30m' }),
      ]),
    );
    expect(disrupted(r, 'Expired')).toEqual([]);
    expect(disrupted(r, 'Drifted')).toHaveLength(3);
    expect(r.violations).toEqual(NO_VIOLATIONS);
    const replacements = (await allClaims(r)).filter((c) =>
      replacementsFor(r, 'Drifted').some((e) => e.nodeClaim === c.name),
    );
    expect(replacements.map((c) => c.expireAfter)).toEqual(['30m', '30m', '30m']);
  });

  it('should detect drift on changes to the static fields (TerminationGracePeriod): the drain keeps the period the claim was launched with', async () => {
    const pool = nodePool({ types: ['m5.large'], consolidateAfter: 'Never', terminationGracePeriod: '3m' });
    const r = await run(
      scenario(30 * MINUTE, [
        step(
          0,
          apply(pool, nodeClass(), deployment('web', 1, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })),
        ),
        patchPool(5 * MINUTE, { terminationGracePeriod: '1h' }),
      ]),
    );
    const [drift] = disrupted(r, 'Drifted');
    expect(drift).toBeDefined();
    const gone = events(r, 'Terminated').find((e) => e.nodeClaim === drift?.nodeClaim);
    expect(gone).toBeDefined();
    // 3m after the drain began, not the NodePool's new hour.
    const took = offset(gone as never) - offset(drift as never);
    expect(took).toBeGreaterThanOrEqual(3 * MINUTE);
    expect(took).toBeLessThan(10 * MINUTE);
    expect((await allClaims(r)).find((c) => c.name === drift?.nodeClaim)?.terminationGracePeriod).toBe('3m');
  });
});
