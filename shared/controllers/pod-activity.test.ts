// Pod activity without a watch stream: departures noticed through the pod-set fingerprint on the claim, and the
// provisioner's nominations protecting a node for 20 s.
import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, testNodePool } from '../../testkit/bed';
import type { Pod } from '../api/kube';
import { disruptionSweep } from './disruption';
import { podSetHash } from './pod-activity';
import { provision } from './provision';

async function bedWithOneNode() {
  const nodePool = testNodePool();
  nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m' };
  const t = createTestbed({ nodePool });
  t.cluster.addPod(makePod('web-0', { cpu: '250m', memory: '256Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName) throw new Error('no initialized node');
  return { t, claim };
}

describe('podSetHash', () => {
  it('is order-independent and tells different pod sets apart', () => {
    const pod = (uid: string) => ({ metadata: { name: uid, namespace: 'default', uid } }) as Pod;
    expect(podSetHash([pod('a'), pod('b')])).toBe(podSetHash([pod('b'), pod('a')]));
    expect(podSetHash([pod('a'), pod('b')])).not.toBe(podSetHash([pod('a')]));
    expect(podSetHash([pod('ab'), pod('c')])).not.toBe(podSetHash([pod('a'), pod('bc')]));
    expect(podSetHash([])).toBe('0:811c9dc5');
  });
});

describe('disruptionSweep without a watch stream: pod departures', () => {
  it('does not consolidate a node emptied a minute ago, and does once consolidateAfter has passed since', async () => {
    const { t, claim } = await bedWithOneNode();
    await disruptionSweep(t.deps);
    const seen = await t.store.get(claim.name);
    expect(seen?.podSetHash).toMatch(/^1:/);
    // First observation: dated by the pod's creation or the initialization, not by the sweep.
    expect(Date.parse(seen?.podsChangedAt ?? '')).toBeLessThan(t.clock.now());

    t.clock.advance(20 * 60_000);
    await disruptionSweep(t.deps);
    expect((await t.store.get(claim.name))?.version).toBe(seen?.version); // unchanged pod set: no write

    t.cluster.deletePod('default/web-0');
    await disruptionSweep(t.deps);
    const changed = await t.store.get(claim.name);
    expect(changed?.podSetHash).toBe('0:811c9dc5');
    expect(changed?.podsChangedAt).toBe(new Date(t.clock.now()).toISOString());
    const emptiedAt = t.clock.now();

    t.clock.advance(60_000);
    const early = await disruptionSweep(t.deps);
    expect(early.decided).toEqual([]);
    expect((await t.store.get(claim.name))?.disruption).toBeUndefined();

    let decidedAt: number | undefined;
    for (let i = 0; i < 5 && decidedAt === undefined; i++) {
      t.clock.advance(60_000);
      const r = await disruptionSweep(t.deps);
      if (r.decided.length) decidedAt = t.clock.now();
    }
    expect(decidedAt).toBe(emptiedAt + 5 * 60_000);
    expect((await t.store.get(claim.name))?.disruption).toMatchObject({ cause: 'Empty', phase: 'Validating' });
  });
});

describe('nomination protection without a watch stream', () => {
  it('the provisioner stamps lastNominatedAt when it nominates pods to an existing node', async () => {
    const { t, claim } = await bedWithOneNode();
    t.clock.advance(60_000);
    t.cluster.addPod(makePod('web-1', { cpu: '100m', memory: '64Mi' }));
    const result = await provision(t.deps, { trigger: 'test' });
    expect(result.nominated).toBe(1);
    expect((await t.store.get(claim.name))?.lastNominatedAt).toBe(new Date(t.clock.now()).toISOString());
  });

  it('a node nominated just now is not disrupted by a sweep in the next 20 s, and is afterwards', async () => {
    const { t, claim } = await bedWithOneNode();
    t.cluster.deletePod('default/web-0');
    t.clock.advance(10 * 60_000);
    await disruptionSweep(t.deps);
    t.clock.advance(10 * 60_000);
    const current = await t.store.get(claim.name);
    if (!current) throw new Error('claim gone');
    await t.store.update(current, { lastNominatedAt: new Date(t.clock.now()).toISOString() });

    t.clock.advance(15_000);
    const protectedSweep = await disruptionSweep(t.deps);
    expect(protectedSweep.decided).toEqual([]);
    expect((await t.store.get(claim.name))?.disruption).toBeUndefined();
    const records = await t.store.listDecisions(claim.name);
    expect(records.some((r) => JSON.stringify(r).includes('nominated 15s ago'))).toBe(true);

    t.clock.advance(10_000);
    const later = await disruptionSweep(t.deps);
    expect(later.decided).toHaveLength(1);
  });
});
