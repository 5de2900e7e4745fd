// NodeClaimDeleted through the provisioner's handler, with the NodeClaim objects in the fake Kubernetes API behind the
// real adapter (shared/kube): a deletion mark on an object whose claim is already gone is cleaned at once, not left
// to the next Sweep tick's mirror (docs/kubernetes.md, NodeClaim objects).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqsEvent } from '../../events/sqs';
import type { NodeClaimObject } from '../../shared/api/nodeclaim-object';
import type { ClusterApi } from '../../shared/ports';
import { mirroredClaim } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

const kube = useKubeClusterBed();
beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

const PATH = '/apis/karpenter.sh/v1/nodeclaims';
const objects = () => kube.api.list<NodeClaimObject>('nodeclaims');
const deleted = (name: string) =>
  JSON.stringify({
    v: 1,
    cluster: 'demo',
    kind: 'NodeClaimDeleted',
    at: '2026-11-26T12:00:00Z',
    refs: [{ kind: 'NodeClaim', name }],
  });

/** A hint sent `minutes` after the fixtures' default SentTimestamp: each hint a test sends again is a new message, sent
 * after the run before it, or that run would answer it (docs/architecture.md, "Coalescing"). */
const sentLater = (minutes: number) => ({ sentAt: Date.parse('2026-11-21T21:00:00Z') + minutes * 60_000 });

/** The provisioner with the simulated cluster, except its NodeClaim objects, which live in the fake API server. */
async function bed() {
  const { t, observability } = functionBed('provisioner');
  const cluster: ClusterApi = Object.assign(Object.create(t.cluster), {
    listNodeClaimObjects: () => kube.cluster.listNodeClaimObjects(),
    writeNodeClaimObject: (d: NodeClaimObject, c: NodeClaimObject | undefined) =>
      kube.cluster.writeNodeClaimObject(d, c),
    deleteNodeClaimObject: (name: string) => kube.cluster.deleteNodeClaimObject(name),
  });
  t.deps.kube = cluster;
  const handler = createHandler(() => portsOf(t), observability);
  const claim = await mirroredClaim(t);
  return { t, handler, claim };
}

/** `kubectl delete nodeclaim NAME` on the fake API server: the finalizer turns it into a deletion mark. */
async function kubectlDelete(name: string): Promise<void> {
  const response = await fetch(`${kube.api.url}${PATH}/${name}`, { method: 'DELETE' });
  expect(response.status).toBe(200);
  expect(kube.api.get<NodeClaimObject>('nodeclaims', undefined, name)?.metadata.deletionTimestamp).toBeDefined();
}

describe('provisioner handler: NodeClaimDeleted for an object whose claim is gone', () => {
  it('takes the finalizer off at once, so the object goes, and leaves the live claim and foreign objects alone', async () => {
    const { t, handler, claim } = await bed();
    const mine = kube.api.get<NodeClaimObject>('nodeclaims', undefined, claim.name) as NodeClaimObject;
    // A Karpless object whose claim the store no longer has (its finalizer release failed while the claim ended),
    // and Karpenter's own NodeClaim, both being deleted.
    kube.api.put('nodeclaims', { ...mine, metadata: { ...mine.metadata, name: 'general-gone', uid: 'u-gone' } });
    kube.api.put('nodeclaims', {
      ...mine,
      metadata: { name: 'karpenter-abc', finalizers: ['karpenter.sh/termination'], labels: {} },
    });
    await kubectlDelete('general-gone');
    await kubectlDelete('karpenter-abc');
    kube.api.requests.length = 0;

    expect(await handler(sqsEvent([deleted('general-gone')]), fakeContext())).toEqual({ batchItemFailures: [] });
    expect(kube.api.get('nodeclaims', undefined, 'general-gone')).toBeUndefined();
    // Through the adapter's guarded patch: the finalizer came off and the API server completed the deletion.
    const patches = kube.api.requestsTo('PATCH', `${PATH}/general-gone`);
    expect(patches.some((r) => JSON.stringify(r.body).includes('"remove"'))).toBe(true);
    // Karpenter's object keeps its mark and finalizer; the live claim's object is not touched, nor its claim.
    expect(kube.api.get<NodeClaimObject>('nodeclaims', undefined, 'karpenter-abc')?.metadata).toMatchObject({
      finalizers: ['karpenter.sh/termination'],
    });
    expect(kube.api.requestsTo('PATCH', `${PATH}/karpenter-abc`)).toEqual([]);
    expect(kube.api.requestsTo('PATCH', `${PATH}/${claim.name}`)).toEqual([]);
    expect((await t.store.get(claim.name))?.state).toBe('Initialized');
    expect(
      objects()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual([claim.name, 'karpenter-abc'].sort());
  });

  it('cleans the mark of a claim that already terminated, and drains a live one as before', async () => {
    const { t, handler, claim } = await bed();
    await kubectlDelete(claim.name);
    expect(await handler(sqsEvent([deleted(claim.name)]), fakeContext())).toEqual({ batchItemFailures: [] });
    expect(await t.store.get(claim.name)).toMatchObject({ state: 'Draining', disruption: { cause: 'Deleted' } });
    // While it drains, the termination holds the object: a second hint leaves it be.
    expect(await handler(sqsEvent([deleted(claim.name)], sentLater(1)), fakeContext())).toEqual({
      batchItemFailures: [],
    });
    expect(kube.api.get('nodeclaims', undefined, claim.name)).toBeDefined();

    // The claim terminates, but its finalizer release fails (the API server refused it), so the mark stays.
    kube.api.override((r) =>
      r.method === 'PATCH' && r.path === `${PATH}/${claim.name}` ? { status: 503, body: {} } : undefined,
    );
    await t.settle(2 * 60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(kube.api.get('nodeclaims', undefined, claim.name)).toBeDefined();
    kube.api.clearOverrides();
    expect(await handler(sqsEvent([deleted(claim.name)], sentLater(2)), fakeContext())).toEqual({
      batchItemFailures: [],
    });
    expect(kube.api.get('nodeclaims', undefined, claim.name)).toBeUndefined();
  });
});
