// NodeClaim objects through the real handlers: the provisioner's Sweep tick mirrors the store into karpenter.sh/v1
// NodeClaim objects through the real Kubernetes adapter (shared/kube) on the fake API server, and rebuilds them when
// someone edits one or removes it by force, and terminates the node of one deleted with `kubectl delete`, at once
// through the forwarder's NodeClaim watch (its real list-watch on the fake API server) or on the next Sweep tick
// (docs/kubernetes.md, NodeClaim objects). The rest of the cluster is the simulated one.
import { afterEach, describe, expect, it } from 'vitest';
import { KubeHttp } from '../../forwarder/kube-http';
import type { LocalPipeline } from '../../local';
import { podKey } from '../../shared/api/kube';
import type { NodeClaimObject } from '../../shared/api/nodeclaim-object';
import { useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import { MINUTE } from '../../testkit/repair';
import { allBound, pipeline } from './helpers';

const bed = useKubeClusterBed();
let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const objects = () => bed.api.list<NodeClaimObject>('nodeclaims');
const names = (list: { metadata: { name: string } }[]) => list.map((o) => o.metadata.name).sort();
const claimNames = (list: { name: string }[]) => list.map((c) => c.name).sort();
const conditions = (o: NodeClaimObject | undefined) =>
  Object.fromEntries((o?.status?.conditions ?? []).map((c) => [c.type, c.status]));

/** Starts the pipeline, lets every pod bind and the nodes settle, and returns it with one Initialized claim. */
async function withInitializedClaim(options: Parameters<typeof pipeline>[0]) {
  p = await pipeline(options);
  const pipe = p;
  expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
  await pipe.runFor(2 * MINUTE);
  const [claim] = await pipe.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName || !claim.instanceId) throw new Error('no initialized claim');
  return { pipe, claim: { ...claim, nodeName: claim.nodeName, instanceId: claim.instanceId } };
}

describe('local pipeline: NodeClaim objects through the fake Kubernetes API', () => {
  it('mirrors each claim on the Sweep tick, and rebuilds a deleted or edited object on the next', async () => {
    p = await pipeline({ nodeClaimObjects: bed.cluster });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    await pipe.runFor(2 * MINUTE);
    const live = await pipe.store.list({ states: ['Initialized'] });
    expect(live.length).toBeGreaterThan(0);
    expect(names(objects())).toEqual(claimNames(live));
    for (const claim of live) {
      const o = bed.api.get<NodeClaimObject>('nodeclaims', undefined, claim.name);
      expect(o?.metadata.labels).toMatchObject({
        'karpenter.sh/nodepool': 'default',
        'node.kubernetes.io/instance-type': claim.instanceType,
        'app.kubernetes.io/managed-by': 'karpless',
      });
      expect(o?.status).toMatchObject({ providerID: claim.providerID, nodeName: claim.nodeName });
      expect(o?.status?.allocatable?.cpu).toBeDefined();
      expect(conditions(o)).toMatchObject({ Launched: 'True', Registered: 'True', Initialized: 'True', Ready: 'True' });
    }
    // Written over HTTP: created, then the status through its subresource.
    expect(bed.api.requestsTo('POST', '/apis/karpenter.sh/v1/nodeclaims').length).toBe(live.length);

    // Someone deletes one object, edits another's spec, and leaves an orphan and a foreign NodeClaim behind.
    const [first, second] = objects();
    if (!first) throw new Error('no object');
    bed.api.remove('nodeclaims', undefined, first.metadata.name);
    if (second) bed.api.put('nodeclaims', { ...second, spec: { ...second.spec, requirements: [] } });
    bed.api.put('nodeclaims', { ...first, metadata: { name: 'orphan', labels: first.metadata.labels } });
    bed.api.put('nodeclaims', { ...first, metadata: { name: 'karpenter-abc', labels: {} } });
    await pipe.runFor(2 * MINUTE);
    expect(names(objects())).toEqual(claimNames([...live, { name: 'karpenter-abc' }]));
    const restored = bed.api.get<NodeClaimObject>('nodeclaims', undefined, first.metadata.name);
    expect(conditions(restored)).toMatchObject({ Initialized: 'True' });
    if (second) {
      const claim = live.find((c) => c.name === second.metadata.name);
      expect(bed.api.get<NodeClaimObject>('nodeclaims', undefined, second.metadata.name)?.spec.requirements).toEqual(
        claim?.requirements,
      );
    }
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('kubectl delete nodeclaim: the finalizer holds the object while the node drains and its instance goes', async () => {
    const { pipe, claim } = await withInitializedClaim({ nodeClaimObjects: bed.cluster });
    const path = `/apis/karpenter.sh/v1/nodeclaims/${claim.name}`;
    expect(bed.api.get<NodeClaimObject>('nodeclaims', undefined, claim.name)?.metadata.finalizers).toEqual([
      'karpenter.sh/termination',
    ]);
    // What kubectl sends: a DELETE, which the API server turns into a deletion mark while the finalizer is on.
    const response = await fetch(`${bed.api.url}${path}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(bed.api.get<NodeClaimObject>('nodeclaims', undefined, claim.name)?.metadata.deletionTimestamp).toBeDefined();
    const gone = async () => bed.api.get('nodeclaims', undefined, claim.name) === undefined;
    expect(await pipe.runUntil(gone, 5 * MINUTE)).toBe(true);
    expect(await pipe.store.get(claim.name)).toMatchObject({ state: 'Terminated', disruption: { cause: 'Deleted' } });
    expect(pipe.sim.getNode(claim.nodeName)).toBeUndefined();
    expect((await pipe.simCloud.get(claim.instanceId))?.state).toBe('terminated');
    // Drained, not dropped: its pods run again on other nodes, and the finalizer came off by a patch.
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    expect(bed.api.requestsTo('PATCH', path).some((r) => JSON.stringify(r.body).includes('"remove"'))).toBe(true);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('kubectl delete nodeclaim reaches the provisioner through the forwarder: cordon, drain, terminate, no Sweep tick', async () => {
    const { pipe, claim } = await withInitializedClaim({
      nodeClaimObjects: bed.cluster,
      nodeClaimWatch: new KubeHttp({ server: bed.api.url, token: () => 'forwarder-token' }),
    });
    const onNode = pipe.sim.allPods().filter((pod) => pod.spec.nodeName === claim.nodeName);
    expect(onNode.length).toBeGreaterThan(0);
    // From here on nothing but the forwarder's message can start the termination: the mirror runs on no tick.
    pipe.stopSweeps();
    const deletedAt = pipe.clock.now();
    const response = await fetch(`${bed.api.url}/apis/karpenter.sh/v1/nodeclaims/${claim.name}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    // The watch event arrives over HTTP in real time; the pipeline's clock is virtual, so wait for it to be batched.
    const end = Date.now() + 5000;
    while (pipe.forwarder.waiting === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(pipe.forwarder.waiting).toBe(1);

    const draining = async () => (await pipe.store.get(claim.name))?.state === 'Draining';
    expect(await pipe.runUntil(draining, 30_000)).toBe(true);
    expect(pipe.clock.now() - deletedAt).toBeLessThan(30_000);
    expect(pipe.timeline.some((e) => e.kind === 'batch-sent' && e.text.startsWith('NodeClaimDeleted'))).toBe(true);
    const gone = async () => bed.api.get('nodeclaims', undefined, claim.name) === undefined;
    expect(await pipe.runUntil(gone, 5 * MINUTE)).toBe(true);
    expect(await pipe.store.get(claim.name)).toMatchObject({ state: 'Terminated', disruption: { cause: 'Deleted' } });
    // Cordoned and drained: every pod on the node was evicted, then the instance and the Node went.
    const evicted = pipe.timeline.filter((e) => e.kind === 'pod-evicted').map((e) => e.subject);
    for (const pod of onNode) expect(evicted).toContain(podKey(pod));
    expect(pipe.sim.getNode(claim.nodeName)).toBeUndefined();
    expect((await pipe.simCloud.get(claim.instanceId))?.state).toBe('terminated');
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    expect(pipe.queues.eventsDlq.size).toBe(0);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('kubectl delete node: the node drains behind its finalizer, then the claim and its object go', async () => {
    const { pipe, claim } = await withInitializedClaim({ nodeClaimObjects: bed.cluster });
    const node = claim.nodeName;
    expect(pipe.sim.getNode(node)?.metadata.finalizers).toEqual(['karpenter.sh/termination']);
    expect(pipe.sim.requestNodeDeletion(node)).toBe(true);
    const gone = async () => pipe.sim.getNode(node) === undefined;
    expect(await pipe.runUntil(gone, 5 * MINUTE)).toBe(true);
    expect(await pipe.store.get(claim.name)).toMatchObject({ state: 'Terminated', disruption: { cause: 'Deleted' } });
    expect((await pipe.simCloud.get(claim.instanceId))?.state).toBe('terminated');
    expect(bed.api.get('nodeclaims', undefined, claim.name)).toBeUndefined();
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('deletes the object of a claim consolidation removed', async () => {
    p = await pipeline({ nodeClaimObjects: bed.cluster });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    await pipe.runFor(2 * MINUTE);
    const before = await pipe.store.list({ states: ['Initialized'] });
    expect(names(objects())).toEqual(claimNames(before));
    // Every pod goes: the nodes are empty, and emptiness removes them.
    for (const pod of pipe.sim.allPods()) expect(pipe.sim.deletePod(podKey(pod))).toBe(true);
    const drained = async () => (await pipe.store.list({ states: ['Initialized', 'Draining'] })).length === 0;
    expect(await pipe.runUntil(drained, 20 * MINUTE)).toBe(true);
    await pipe.runFor(2 * MINUTE);
    expect(objects()).toEqual([]);
    expect(bed.api.requestsTo('DELETE', '/apis/karpenter.sh/v1/nodeclaims').length).toBeGreaterThanOrEqual(
      before.length,
    );
  });
});
