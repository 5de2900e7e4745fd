// kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/registration_test.go and emptiness_test.go, on the
// scenario runner: a NodePool template's annotations reach the NodeClaim at launch and the Node at registration, so
// karpenter.sh/do-not-disrupt on the template protects the pool's nodes.
import { describe, expect, it } from 'vitest';
import {
  apply,
  deployment,
  disrupted,
  liveClaims,
  MINUTE,
  NO_VIOLATIONS,
  nodeClass,
  nodePool,
  run,
  scale,
  scenario,
  step,
} from '../../../testkit/karpenter';

const DND = 'karpenter.sh/do-not-disrupt';

describe('registration_test.go', () => {
  it('Registration: should sync the annotations to the Node when the Node comes online', async () => {
    const pool = nodePool({ annotations: { 'example.com/owner': 'team-a' }, types: ['m5.large'] });
    const r = await run(scenario(5 * MINUTE, [step(0, apply(pool, nodeClass(), deployment('web', 1, { cpu: '1' })))]));
    const [claim] = await liveClaims(r);
    // The scheduler adds whether it relaxed minValues, as Karpenter's does on every NodeClaim it creates.
    expect(claim?.annotations).toEqual({
      'example.com/owner': 'team-a',
      'karpenter.sh/nodeclaim-min-values-relaxed': 'false',
    });
    const node = (await r.world.cluster.listNodes()).find((n) => n.metadata.name === claim?.nodeName);
    expect(node?.metadata.annotations).toMatchObject({ 'example.com/owner': 'team-a' });
  });
});

describe('emptiness_test.go', () => {
  it('Emptiness: should ignore nodes with the karpenter.sh/do-not-disrupt annotation (set on the NodePool template)', async () => {
    const pool = nodePool({ annotations: { [DND]: 'true' }, consolidateAfter: '1m', types: ['m5.large'] });
    const r = await run(
      scenario(20 * MINUTE, [
        step(0, apply(pool, nodeClass(), deployment('web', 2, { cpu: '1' }))),
        step(5 * MINUTE, scale('web', 0)),
      ]),
    );
    expect(disrupted(r)).toEqual([]);
    const claims = await liveClaims(r);
    expect(claims).toHaveLength(2);
    expect(claims.every((c) => c.annotations?.[DND] === 'true')).toBe(true);
    expect(r.violations).toEqual(NO_VIOLATIONS);
  });

  it('Emptiness: can delete empty nodes (the same pool without the template annotation)', async () => {
    const pool = nodePool({ consolidateAfter: '1m', types: ['m5.large'] });
    const r = await run(
      scenario(20 * MINUTE, [
        step(0, apply(pool, nodeClass(), deployment('web', 2, { cpu: '1' }))),
        step(5 * MINUTE, scale('web', 0)),
      ]),
    );
    expect(disrupted(r, 'Empty')).toHaveLength(2);
    expect(await liveClaims(r)).toEqual([]);
  });
});
