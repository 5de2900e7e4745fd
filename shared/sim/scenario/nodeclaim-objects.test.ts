// The simulator mirrors NodeClaims into its cluster as karpenter.sh/v1 NodeClaim objects through the same use-case
// the Lambda runs (the disruption sweep's mirrorNodeClaims, shared/controllers/nodeclaim-mirror.ts).
import { describe, expect, it } from 'vitest';
import { apply, deployment, MINUTE, nodeClass, nodePool, run, scenario, step } from '../../../testkit/scenario';
import { LIVE_STATES } from '../../api/nodeclaim';
import { MANAGED_BY_KARPLESS, MANAGED_BY_LABEL } from '../../api/nodeclaim-object';

describe('NodeClaim objects in the simulated cluster', () => {
  it('mirrors each live claim with its node, labels and Ready condition, and deletes the mirror of a removed one', async () => {
    const r = await run(
      scenario(20 * MINUTE, [
        step(0, apply(nodeClass(), nodePool({ types: ['m5.large'] }), deployment('web', 3, { cpu: '1500m' }))),
        step(5 * MINUTE, {
          type: 'scale',
          target: { kind: 'Deployment', namespace: 'default', name: 'web' },
          replicas: 1,
        }),
      ]),
    );
    const live = (await r.world.store.list({ states: LIVE_STATES })).filter((c) => c.state === 'Initialized');
    expect(live).toHaveLength(1);
    const objects = await r.world.cluster.listNodeClaimObjects();
    // The two claims consolidation removed after the scale-down left no object behind.
    expect(objects.map((o) => o.metadata.name)).toEqual(live.map((c) => c.name));
    const [o] = objects;
    const [claim] = live;
    expect(o?.metadata.labels?.[MANAGED_BY_LABEL]).toBe(MANAGED_BY_KARPLESS);
    expect(o?.metadata.labels?.['node.kubernetes.io/instance-type']).toBe('m5.large');
    expect(o?.status?.nodeName).toBe(claim?.nodeName);
    expect(o?.status?.providerID).toBe(claim?.providerID);
    expect(o?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(o?.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
  });
});

describe('kubectl delete nodeclaim in a scenario', () => {
  const steps = [
    step(0, apply(nodeClass(), nodePool({ types: ['m5.large'] }), deployment('web', 2, { cpu: '1500m' }))),
  ];

  it("drains and terminates the claim's node at the step, through the forwarder's NodeClaimDeleted", async () => {
    const first = await run(scenario(5 * MINUTE, steps));
    const [victim] = (await first.world.store.list({ states: ['Initialized'] })).map((c) => c.name).sort();
    if (!victim) throw new Error('no initialized claim');
    // Between two Sweep ticks (every minute), so only the step's own message can start the drain at 5m30s.
    const r = await run(
      scenario(15 * MINUTE, [
        ...steps,
        step(5.5 * MINUTE, { type: 'delete', targets: [{ kind: 'NodeClaim', namespace: '', name: victim }] }),
      ]),
    );
    const claim = await r.world.store.get(victim);
    expect(claim).toMatchObject({ state: 'Terminated', disruption: { cause: 'Deleted' } });
    const created = await first.world.store.get(victim);
    const startedAfter = Date.parse(claim?.disruption?.at ?? '') - Date.parse(created?.createdAt ?? '');
    expect(startedAfter).toBe(5.5 * MINUTE - 1000);
    expect((await r.world.cluster.listNodeClaimObjects()).map((o) => o.metadata.name)).not.toContain(victim);
    // Its pod was drained and runs again on a new node.
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });
});
