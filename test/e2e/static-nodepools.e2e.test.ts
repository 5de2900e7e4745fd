// Static NodePools (`spec.replicas`) through the real handlers on the local pipeline (docs/api.md, Static NodePools;
// docs/disruption.md, Static NodePools): the forwarder's NodePoolChanged reaches the provisioner Lambda, which keeps
// the pool at its replicas whatever the pods need, within `limits.nodes`; a scale-down bypasses the pool's budgets
// and waits on PodDisruptionBudgets; the Sweep tick never consolidates the pool's nodes.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import type { NodePool } from '../../shared/api/karpenter';
import { LabelNodePool } from '../../shared/api/labels';
import { LIVE_STATES } from '../../shared/api/nodeclaim';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';
import { pdb } from '../../testkit/disruption';
import { MINUTE } from '../../testkit/repair';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

/** A static pool of the bed's types (c5.large is its cheapest), as `kubectl scale nodepool` leaves it. */
function staticPool(replicas: number, o: { limits?: Record<string, string>; budgetZero?: boolean } = {}): NodePool {
  const base = testNodePool('fixed');
  return {
    ...base,
    spec: {
      ...base.spec,
      replicas,
      ...(o.limits ? { limits: o.limits } : {}),
      ...(o.budgetZero ? { disruption: { ...base.spec.disruption, budgets: [{ nodes: '0' }] } } : {}),
    },
  };
}

/** The pool's claims that count toward its replicas: live and not draining. */
async function counted(pipe: LocalPipeline, pool = 'fixed') {
  const claims = await pipe.store.list({ states: LIVE_STATES });
  return claims.filter((c) => c.nodePool === pool && c.state !== 'Draining');
}

const nodesOf = async (pipe: LocalPipeline, pool = 'fixed') =>
  (await pipe.sim.listNodes()).filter((n) => n.metadata.labels?.[LabelNodePool] === pool);

const initialized =
  (pipe: LocalPipeline, n: number, pool = 'fixed') =>
  async () =>
    (await pipe.store.list({ states: ['Initialized'] })).filter((c) => c.nodePool === pool).length === n &&
    (await counted(pipe, pool)).length === n;

describe('local pipeline: static NodePools', () => {
  it('brings a static pool up to its replicas with no pods, and scales it up and down on NodePoolChanged', async () => {
    // Sweep ticks every 10 minutes: what happens sooner came from the forwarder's NodePoolChanged.
    p = await pipeline({ objects: [staticPool(3), testNodeClass()], sweepEveryMs: 10 * MINUTE });
    const pipe = p;
    const start = pipe.clock.now();
    expect(await pipe.runUntil(initialized(pipe, 3), 5 * MINUTE)).toBe(true);
    const first = await counted(pipe);
    expect(first.map((c) => c.nominatedPods.length)).toEqual([0, 0, 0]);
    expect(Math.max(...first.map((c) => Date.parse(c.createdAt) - start))).toBeLessThan(MINUTE);
    expect(await nodesOf(pipe)).toHaveLength(3);
    expect(await pipe.sim.listPods()).toEqual([]);

    const upAt = pipe.clock.now();
    pipe.forwarder.upsert(staticPool(5));
    expect(await pipe.runUntil(initialized(pipe, 5), 5 * MINUTE)).toBe(true);
    const added = (await counted(pipe)).filter((c) => !first.some((f) => f.name === c.name));
    expect(added).toHaveLength(2);
    for (const c of added) expect(Date.parse(c.createdAt) - upAt).toBeLessThan(MINUTE);
    expect(pipe.timeline.some((e) => e.kind === 'batch-sent' && e.text.startsWith('NodePoolChanged'))).toBe(true);

    const downAt = pipe.clock.now();
    pipe.forwarder.upsert(staticPool(2));
    const two = async () => (await nodesOf(pipe)).length === 2 && (await counted(pipe)).length === 2;
    expect(await pipe.runUntil(two, 5 * MINUTE)).toBe(true);
    expect(pipe.clock.now() - downAt).toBeLessThan(MINUTE);
    const gone = (await pipe.store.list()).filter((c) => c.state === 'Terminated');
    expect(gone).toHaveLength(3);
    for (const c of gone) {
      expect(c.disruption).toMatchObject({ cause: 'Deleted', detail: 'static NodePool fixed scaled to 2 replicas' });
    }
    expect((await pipe.cloud.list()).filter((i) => i.state !== 'terminated')).toHaveLength(2);
    expect(await pipe.audit()).toMatchObject({ orphanInstances: [], duplicateLaunches: [] });
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('scales down past a zero budget, but waits on a PodDisruptionBudget', async () => {
    // Each 1200m pod fills its own c5.large; the PDB allows no web pod to go.
    p = await pipeline({
      objects: [staticPool(3, { budgetZero: true }), testNodeClass(), pdb('web', { app: 'web' }, 0)],
    });
    const pipe = p;
    expect(await pipe.runUntil(initialized(pipe, 3), 5 * MINUTE)).toBe(true);
    for (let i = 0; i < 3; i++) pipe.forwarder.addPod(makePod(`web-${i}`, { cpu: '1200m', labels: { app: 'web' } }));
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const pods = await pipe.sim.listPods();
    expect(new Set(pods.map((x) => x.spec.nodeName)).size).toBe(3);

    pipe.forwarder.upsert(staticPool(2, { budgetZero: true }));
    await pipe.runFor(10 * MINUTE);
    const draining = (await pipe.store.list({ states: ['Draining'] })).filter((c) => c.nodePool === 'fixed');
    expect(draining).toHaveLength(1);
    const leaving = draining[0];
    if (!leaving?.nodeName) throw new Error('no draining claim with a node');
    // The budget of zero did not hold the scale-down; the PDB holds the drain, and the pod stays where it runs.
    expect(leaving.disruption).toMatchObject({ cause: 'Deleted' });
    expect(pipe.sim.getNode(leaving.nodeName)).toBeDefined();
    expect((await pipe.sim.listPods({ nodeName: leaving.nodeName })).map((x) => x.metadata.labels?.app)).toEqual([
      'web',
    ]);
    expect(pipe.sim.events.some((e) => e.reason === 'EvictionBlocked')).toBe(true);
    // The draining claim no longer counts toward the replicas, and nothing replaced it.
    expect(await counted(pipe)).toHaveLength(2);
    expect((await pipe.store.list()).filter((c) => c.nodePool === 'fixed')).toHaveLength(3);

    pipe.forwarder.upsert(pdb('web', { app: 'web' }, 1));
    const ended = async () => (await pipe.store.get(leaving.name))?.state === 'Terminated';
    expect(await pipe.runUntil(ended, 10 * MINUTE)).toBe(true);
    expect(pipe.sim.getNode(leaving.nodeName)).toBeUndefined();
    expect(await nodesOf(pipe)).toHaveLength(2);
    // The evicted pod came back pending; a static pool never launches for pods, and the two left have no room.
    await pipe.runFor(5 * MINUTE);
    expect((await pipe.sim.listPendingPods()).map((x) => x.metadata.labels?.app)).toEqual(['web']);
    expect(await counted(pipe)).toHaveLength(2);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
    expect(pipe.queues.eventsDlq.size + pipe.queues.terminationDlq.size).toBe(0);
    // Twenty virtual minutes of real handlers on dynalite: about 11 s on a loaded machine, so the harness limit is
    // raised; nothing here measures speed.
  }, 90_000);

  it('never consolidates its empty nodes, while the sweep removes an empty node of a dynamic pool', async () => {
    const web = makePod('web-0', { cpu: '500m' });
    web.spec.nodeSelector = { [LabelNodePool]: 'default' };
    p = await pipeline({ objects: [staticPool(2), testNodePool(), testNodeClass(), web] });
    const pipe = p;
    const settled = async () => (await initialized(pipe, 2)()) && (await allBound(pipe)());
    expect(await pipe.runUntil(settled, 5 * MINUTE)).toBe(true);
    const statics = (await counted(pipe)).map((c) => c.name).sort();
    const [dynamic] = await counted(pipe, 'default');
    if (!dynamic) throw new Error('no claim of the dynamic pool');
    pipe.sim.deletePod('default/web-0');

    const ended = async () => (await pipe.store.get(dynamic.name))?.state === 'Terminated';
    expect(await pipe.runUntil(ended, 10 * MINUTE)).toBe(true);
    expect((await pipe.store.listDecisions(dynamic.name)).some((d) => d.kind === 'Disrupt')).toBe(true);
    // Thirty more minutes of Sweep ticks over two empty nodes consolidateAfter 0s would take at once.
    await pipe.runFor(30 * MINUTE);
    expect((await counted(pipe)).map((c) => c.name).sort()).toEqual(statics);
    for (const name of statics) {
      expect((await pipe.store.get(name))?.state).toBe('Initialized');
      expect((await pipe.store.listDecisions(name)).filter((d) => d.kind === 'Disrupt')).toEqual([]);
    }
    expect(await nodesOf(pipe)).toHaveLength(2);
    expect(pipe.invocations.filter((i) => i.fn === 'provisioner').length).toBeGreaterThan(30);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
    // Forty virtual minutes of real handlers: about 13 s on a loaded machine (limit raised, as above).
  }, 90_000);

  it('stops at limits.nodes below its replicas, and grows when the limit is raised', async () => {
    p = await pipeline({ objects: [staticPool(5, { limits: { nodes: '3' } }), testNodeClass()] });
    const pipe = p;
    expect(await pipe.runUntil(initialized(pipe, 3), 5 * MINUTE)).toBe(true);
    await pipe.runFor(10 * MINUTE);
    expect((await pipe.store.list()).filter((c) => c.nodePool === 'fixed')).toHaveLength(3);
    expect(await nodesOf(pipe)).toHaveLength(3);

    pipe.forwarder.upsert(staticPool(5, { limits: { nodes: '5' } }));
    expect(await pipe.runUntil(initialized(pipe, 5), 5 * MINUTE)).toBe(true);
    expect((await pipe.store.list()).filter((c) => c.nodePool === 'fixed')).toHaveLength(5);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });
});
