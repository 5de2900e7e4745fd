// Deleting a NodePool, as Karpenter behaves (docs/disruption.md, Deleting a NodePool): kubernetes-sigs/karpenter
// pkg/controllers/provisioning/suite_test.go for the provisioner's side ("should ignore NodePools that are deleting",
// "should mark pod as unschedulable if there are no valid nodepools"), and the cascade its NodeClaims' owner reference
// gives (karpenter.sh concepts/disruption.md "NodePool Deletion"; concepts/nodeclaims.md: deleting a NodePool
// cascade-deletes its NodeClaims, each terminated gracefully through its finalizer). Karpless's claims carry no owner
// reference: garbage collection (collectGarbage) and the NodePoolChanged hint (handleControlMessage) do the cascade.
//
// Left out: "should create a nodeclaim request with the correct owner reference". Karpless's claims live in its store
// with their NodePool's name, not as objects Kubernetes' garbage collector follows; the cascade tests below are its
// behaviour. The EC2NodeClass finalizer ("should not delete the EC2NodeClass until all associated NodeClaims are
// terminated", aws/karpenter-provider-aws nodeclass suite_test.go) is not shipped: docs/disruption.md says why.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../../shared/api/karpenter';
import type { PodDisruptionBudget } from '../../../shared/api/kube';
import { LIVE_STATES, type NodeClaim } from '../../../shared/api/nodeclaim';
import { handleControlMessage } from '../../../shared/controllers/dispatch';
import { collectGarbage } from '../../../shared/controllers/gc';
import { provision } from '../../../shared/controllers/provision';
import type { CloudInstance } from '../../../shared/ports';
import { createTestbed, makePod, type Testbed, testNodePool, unlaunchedClaimBed } from '../../../testkit/bed';

const deleting = (pool: NodePool): NodePool => ({
  ...pool,
  metadata: { ...pool.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
});

type Metric = [name: string, value: number, dimensions: Record<string, string> | undefined];

/** A bed with `pods` pods (3 CPUs each: one per xlarge node) running on NodePool `default`, then a second NodePool
 * `other` applied; every instance deletion and metric recorded. */
async function running(
  pods = 2,
): Promise<{ t: Testbed; claims: NodeClaim[]; deleted: CloudInstance[]; metrics: Metric[] }> {
  const t = createTestbed();
  const deleted: CloudInstance[] = [];
  t.cloud.onDelete((i) => deleted.push(i));
  for (let i = 0; i < pods; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '3', labels: { app: 'web' } }));
  await provision(t.deps);
  await t.settle(2 * 60_000);
  const claims = await t.store.list({ states: ['Initialized'] });
  if (claims.length !== pods) throw new Error(`expected ${pods} initialized claims, got ${claims.length}`);
  t.cluster.upsert(testNodePool('other'));
  const metrics: Metric[] = [];
  t.deps.metric = (name, value, _unit, dimensions) => metrics.push([name, value, dimensions]);
  return { t, claims, deleted, metrics };
}

const live = async (t: Testbed, pool: string) =>
  (await t.store.list({ states: LIVE_STATES })).filter((c) => c.nodePool === pool);

const pdb = (maxUnavailable: number): PodDisruptionBudget => ({
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web', namespace: 'default' },
  spec: { maxUnavailable, selector: { matchLabels: { app: 'web' } } },
});

describe('provisioning/suite_test.go', () => {
  it('should ignore NodePools that are deleting', async () => {
    const t = createTestbed();
    t.cluster.upsert(deleting(t.nodePool));
    t.cluster.addPod(makePod('web-0'));
    const result = await provision(t.deps);
    expect(result.launched).toEqual([]);
    expect(await t.cloud.list()).toEqual([]);
    expect((await t.cluster.listPendingPods()).map((p) => p.metadata.name)).toEqual(['web-0']);
  });

  it('should mark pod as unschedulable if there are no valid nodepools', async () => {
    const t = createTestbed();
    t.cluster.upsert(deleting(t.nodePool));
    t.cluster.addPod(makePod('web-0'));
    const result = await provision(t.deps);
    expect(result.unschedulable.map((u) => u.pod)).toEqual(['default/web-0']);
    expect(t.cluster.events.some((e) => e.reason === 'FailedScheduling' && e.involved.name === 'web-0')).toBe(true);
  });
});

describe('NodePool deletion: NodeClaims are owned by their NodePool and terminated gracefully with it', () => {
  it('terminates every NodeClaim of a deleted NodePool through the termination finalizer: cordon, drain, terminate', async () => {
    const { t, claims, deleted } = await running(2);
    expect(t.cluster.deleteNodePool('default')).toBe(true);
    const gc = await collectGarbage(t.deps);
    expect(gc.nodePoolDeleted.sort()).toEqual(claims.map((c) => c.name).sort());
    for (const c of claims) {
      expect(await t.store.get(c.name)).toMatchObject({
        state: 'Draining',
        disruption: { cause: 'NodePoolDeleted', detail: 'NodePool default was deleted' },
      });
    }
    await t.settle(2 * 60_000);
    for (const c of claims) {
      expect((await t.store.get(c.name))?.state).toBe('Terminated');
      expect(t.cluster.getNode(c.nodeName ?? '')).toBeUndefined();
    }
    expect(deleted.map((i) => i.instanceId).sort()).toEqual(claims.map((c) => c.instanceId).sort());
    // Drained, not dropped: the pods run again, on the NodePool that is left.
    const pods = await t.cluster.listPods();
    expect(pods.map((p) => p.metadata.name).sort()).toEqual(['web-0', 'web-1']);
    const others = await live(t, 'other');
    expect(others.length).toBeGreaterThan(0);
    for (const p of pods) expect(others.map((c) => c.nodeName)).toContain(p.spec.nodeName);
    // Explainable: the node's event and the decision record name the NodePool's deletion.
    const disrupting = t.cluster.events.filter((e) => e.reason === 'Disrupting');
    expect(disrupting.map((e) => e.message)).toContain(
      'Disrupting node: NodePoolDeleted (NodePool default was deleted)',
    );
    const pool = t.cluster.events.filter((e) => e.involved.kind === 'NodePool' && e.reason === 'NodePoolDeleted');
    expect(pool).toHaveLength(1);
    expect(pool[0]?.message).toMatch(/^NodePool default was deleted: terminating 2 NodeClaim\(s\): /);
  });

  it('terminates the NodeClaims of a NodePool whose deletion another finalizer holds (deletionTimestamp set)', async () => {
    const { t, claims } = await running(1);
    t.cluster.upsert(deleting(t.nodePool));
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual(claims.map((c) => c.name));
    expect((await t.store.get(claims[0]?.name ?? ''))?.disruption?.detail).toBe('NodePool default is being deleted');
  });

  it('starts the cascade on the NodePoolChanged hint, without waiting for garbage collection', async () => {
    const { t, claims } = await running(1);
    t.cluster.deleteNodePool('default');
    await handleControlMessage(t.deps, {
      v: 1,
      cluster: 'test',
      kind: 'NodePoolChanged',
      at: new Date(t.clock.now()).toISOString(),
      refs: [{ name: 'default' }],
    });
    expect((await t.store.get(claims[0]?.name ?? ''))?.state).toBe('Draining');
  });

  it('waits on a PodDisruptionBudget while draining the nodes of a deleted NodePool', async () => {
    const { t, claims, deleted } = await running(2);
    t.cluster.upsert(pdb(0));
    t.cluster.deleteNodePool('default');
    await collectGarbage(t.deps);
    await t.settle(3 * 60_000);
    for (const c of claims) {
      expect((await t.store.get(c.name))?.state).toBe('Draining');
      expect(t.cluster.getNode(c.nodeName ?? '')?.spec.unschedulable).toBe(true);
    }
    expect(deleted).toEqual([]);
    expect(t.cluster.events.some((e) => e.reason === 'FailedDraining')).toBe(true);
    t.cluster.upsert(pdb(1));
    await t.settle(5 * 60_000);
    for (const c of claims) expect((await t.store.get(c.name))?.state).toBe('Terminated');
    expect(deleted).toHaveLength(2);
  });

  it('leaves the NodeClaims of the other NodePools alone', async () => {
    const { t, claims } = await running(1);
    t.cluster.deleteNodePool('other');
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual([]);
    expect((await t.store.get(claims[0]?.name ?? ''))?.state).toBe('Initialized');
  });

  it('leaves a NodeClaim without a NodePool alone: a standalone NodeClaim has no owner', async () => {
    const { t, claims } = await running(1);
    const [claim] = claims;
    if (!claim) throw new Error('no claim');
    await t.store.update(claim, { nodePool: '' });
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual([]);
    expect((await t.store.get(claim.name))?.state).toBe('Initialized');
  });

  it('is idempotent: each NodeClaim is started once, counted once, and not as a disruption', async () => {
    const { t, claims, metrics } = await running(1);
    t.cluster.upsert(pdb(0));
    t.cluster.deleteNodePool('default');
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toHaveLength(1);
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual([]);
    await handleControlMessage(t.deps, {
      v: 1,
      cluster: 'test',
      kind: 'NodePoolChanged',
      at: new Date(t.clock.now()).toISOString(),
      refs: [],
    });
    t.cluster.upsert(pdb(1));
    await t.settle(3 * 60_000);
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual([]);
    expect((await t.store.get(claims[0]?.name ?? ''))?.state).toBe('Terminated');
    const named = (name: string) => metrics.filter(([n]) => n === name);
    expect(named('DisruptionStarted')).toEqual([['DisruptionStarted', 1, { cause: 'NodePoolDeleted' }]]);
    expect(named('NodeClaimsTerminated')).toEqual([['NodeClaimsTerminated', 1, { cause: 'NodePoolDeleted' }]]);
    // Karpenter's karpenter_nodeclaims_disrupted_total does not count a cascade deletion.
    expect(named('NodeClaimsDisrupted')).toEqual([]);
    expect(t.cluster.events.filter((e) => e.reason === 'NodePoolDeleted')).toHaveLength(1);
  });

  it("terminates a NodeClaim of a deleted NodePool that hasn't launched yet without calling Delete on the cloud", async () => {
    const { t, claim, deleted } = await unlaunchedClaimBed();
    t.cluster.deleteNodePool('default');
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual([claim.name]);
    await t.pump();
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(deleted).toEqual([]);
    expect(await t.cloud.list()).toEqual([]);
  });

  it('deleting the EC2NodeClass terminates nothing: its nodes run on, and its NodePools launch no more (no finalizer)', async () => {
    const { t, claims, deleted } = await running(1);
    expect(t.cluster.deleteNodeClass('default')).toBe(true);
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual([]);
    t.cluster.addPod(makePod('late-0', { cpu: '3' }));
    const result = await provision(t.deps);
    expect(result.launched).toEqual([]);
    await t.settle(2 * 60_000);
    expect((await t.store.get(claims[0]?.name ?? ''))?.state).toBe('Initialized');
    expect(deleted).toEqual([]);
    // Deleting the NodePool then removes the nodes, as the docs advise.
    t.cluster.deleteNodePool('default');
    t.cluster.deleteNodePool('other');
    expect((await collectGarbage(t.deps)).nodePoolDeleted).toEqual([claims[0]?.name]);
  });
});
