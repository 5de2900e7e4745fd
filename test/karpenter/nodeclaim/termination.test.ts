// kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle termination_test.go and
// pkg/controllers/node/termination suite_test.go, case by case: `kubectl delete nodeclaim` and `kubectl delete node`
// on a Karpless node. Both objects carry Karpenter's karpenter.sh/termination finalizer, so the deletion waits while
// the node is drained (PDBs respected) and its instance terminated (docs/kubernetes.md, NodeClaim objects). The
// deletion of a NodeClaim object is seen by the mirror the Sweep tick runs (mirrorNodeClaims here); that of a Node
// by the lifecycle a NodeChanged runs (reconcileNodes, as the bed's settle does).
import { describe, expect, it } from 'vitest';
import type { PodDisruptionBudget } from '../../../shared/api/kube';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import type { NodeClaimObject } from '../../../shared/api/nodeclaim-object';
import { reconcileNodes } from '../../../shared/controllers/lifecycle';
import { mirrorNodeClaims } from '../../../shared/controllers/nodeclaim-mirror';
import type { CloudInstance } from '../../../shared/ports';
import { createTestbed, mirroredClaim, type Testbed, unlaunchedClaimBed } from '../../../testkit/bed';

const FINALIZER = 'karpenter.sh/termination';

async function initialized(): Promise<{ t: Testbed; claim: NodeClaim; node: string; deleted: CloudInstance[] }> {
  const t = createTestbed();
  const deleted: CloudInstance[] = [];
  t.cloud.onDelete((i) => deleted.push(i));
  const claim = await mirroredClaim(t);
  return { t, claim, node: claim.nodeName, deleted };
}

async function object(t: Testbed, name: string): Promise<NodeClaimObject | undefined> {
  return (await t.cluster.listNodeClaimObjects()).find((o) => o.metadata.name === name);
}

const blockingPdb = (maxUnavailable: number): PodDisruptionBudget => ({
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web', namespace: 'default' },
  spec: { maxUnavailable, selector: { matchLabels: { app: 'web' } } },
});

describe('nodeclaim/lifecycle/termination_test.go: Termination', () => {
  it('should delete the node and the CloudProvider NodeClaim when NodeClaim deletion is triggered', async () => {
    const { t, claim, node, deleted } = await initialized();
    expect((await object(t, claim.name))?.metadata.finalizers).toEqual([FINALIZER]);
    expect(t.cluster.requestNodeClaimObjectDeletion(claim.name)).toBe(true);
    // The finalizer holds the object until Karpless has removed the node.
    expect((await object(t, claim.name))?.metadata.deletionTimestamp).toBeDefined();
    expect((await mirrorNodeClaims(t.deps))?.terminating).toEqual([claim.name]);
    expect(await t.store.get(claim.name)).toMatchObject({ state: 'Draining', disruption: { cause: 'Deleted' } });
    await t.settle(60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(deleted.map((i) => i.instanceId)).toEqual([claim.instanceId]);
    expect(t.cluster.getNode(node)).toBeUndefined();
    expect(await object(t, claim.name)).toBeUndefined();
    // Its pod was drained (evicted), not lost: it runs again elsewhere.
    expect(t.cluster.allPods().map((p) => p.spec.nodeName)).not.toContain(node);
  });

  it("should ignore NodeClaims which aren't managed by this Karpenter instance", async () => {
    const { t, claim, node, deleted } = await initialized();
    // Someone else's NodeClaim of the same name (no app.kubernetes.io/managed-by=karpless): the mirror leaves it alone.
    await t.cluster.deleteNodeClaimObject(claim.name);
    const foreign: NodeClaimObject = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: claim.name, labels: { 'karpenter.sh/nodepool': 'default' }, finalizers: [FINALIZER] },
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [],
        resources: { requests: {} },
      },
    };
    await t.cluster.writeNodeClaimObject(foreign, undefined);
    t.cluster.requestNodeClaimObjectDeletion(claim.name);
    const result = await mirrorNodeClaims(t.deps);
    expect(result?.terminating).toEqual([]);
    expect(result?.foreign).toEqual([claim.name]);
    await t.settle(60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Initialized');
    expect(t.cluster.getNode(node)).toBeDefined();
    expect(deleted).toEqual([]);
    expect((await object(t, claim.name))?.metadata.finalizers).toEqual([FINALIZER]);
  });

  it("should not call Delete() on the CloudProvider if the NodeClaim hasn't been launched yet", async () => {
    const { t, claim, deleted } = await unlaunchedClaimBed();
    await mirrorNodeClaims(t.deps);
    t.cluster.requestNodeClaimObjectDeletion(claim.name);
    expect((await mirrorNodeClaims(t.deps))?.terminating).toEqual([claim.name]);
    await t.pump();
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(deleted).toEqual([]);
    expect(await object(t, claim.name)).toBeUndefined();
  });

  it('should not remove the finalizer and terminate the NodeClaim while its pods cannot be evicted (a PDB)', async () => {
    const { t, claim, node, deleted } = await initialized();
    t.cluster.upsert(blockingPdb(0));
    t.cluster.requestNodeClaimObjectDeletion(claim.name);
    await mirrorNodeClaims(t.deps);
    await t.settle(2 * 60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Draining');
    expect(t.cluster.getNode(node)?.spec.unschedulable).toBe(true);
    expect(t.cluster.allPods().filter((p) => p.spec.nodeName === node)).toHaveLength(1);
    expect(deleted).toEqual([]);
    expect((await object(t, claim.name))?.metadata.finalizers).toEqual([FINALIZER]);
    // A sweep while it drains neither starts a second termination nor drops the object.
    expect((await mirrorNodeClaims(t.deps))?.terminating).toEqual([]);
    t.cluster.upsert(blockingPdb(1));
    await t.settle(2 * 60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(await object(t, claim.name)).toBeUndefined();
    expect(deleted.map((i) => i.instanceId)).toEqual([claim.instanceId]);
  });
});

describe('node/termination/suite_test.go: Termination (kubectl delete node)', () => {
  it('should delete nodes', async () => {
    const { t, claim, node, deleted } = await initialized();
    expect(t.cluster.getNode(node)?.metadata.finalizers).toEqual([FINALIZER]);
    expect(t.cluster.requestNodeDeletion(node)).toBe(true);
    expect(t.cluster.getNode(node)?.metadata.deletionTimestamp).toBeDefined();
    const lifecycle = await reconcileNodes(t.deps);
    expect(lifecycle.nodesDeleted).toEqual([claim.name]);
    // Drained as Karpenter's node termination drains: no deadline, so PDBs and terminationGracePeriod hold.
    const draining = await t.store.get(claim.name);
    expect(draining).toMatchObject({ state: 'Draining', disruption: { cause: 'Deleted' } });
    expect(draining?.drain?.deadline).toBeUndefined();
    await t.settle(60_000);
    expect(t.cluster.getNode(node)).toBeUndefined();
    expect(deleted.map((i) => i.instanceId)).toEqual([claim.instanceId]);
  });

  it('should delete nodeclaims associated with nodes', async () => {
    const { t, claim, node } = await initialized();
    t.cluster.requestNodeDeletion(node);
    await t.settle(60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(await object(t, claim.name)).toBeUndefined();
  });

  it('should fail to evict pods that violate a PDB', async () => {
    const { t, claim, node, deleted } = await initialized();
    t.cluster.upsert(blockingPdb(0));
    t.cluster.requestNodeDeletion(node);
    await t.settle(2 * 60_000);
    // The node stays, held by the finalizer, with its pod: the budget allows no eviction.
    expect(t.cluster.getNode(node)?.metadata.deletionTimestamp).toBeDefined();
    expect(t.cluster.allPods().filter((p) => p.spec.nodeName === node)).toHaveLength(1);
    expect(deleted).toEqual([]);
    // Karpenter's FailedDraining on the Node, naming the pod the budget holds.
    const failed = t.cluster.events.filter((e) => e.reason === 'FailedDraining');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((e) => e.involved.kind === 'Node' && e.involved.name === node && e.type === 'Warning')).toBe(
      true,
    );
    expect(failed[0]?.message).toMatch(/^Failed to drain node, evicting pod violates a PDB \(Pod=default\/.+\)$/);
    t.cluster.upsert(blockingPdb(1));
    await t.settle(2 * 60_000);
    expect(t.cluster.getNode(node)).toBeUndefined();
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
  });

  it('gives a node the finalizer at registration, and back to one registered without it', async () => {
    const { t, node } = await initialized();
    t.cluster.updateNode(node, (n) => ({ ...n, metadata: { ...n.metadata, finalizers: [] } }));
    await reconcileNodes(t.deps);
    expect(t.cluster.getNode(node)?.metadata.finalizers).toEqual([FINALIZER]);
  });
});
