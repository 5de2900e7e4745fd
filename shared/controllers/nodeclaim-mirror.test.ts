// The NodeClaim mirror through the real kube adapter (shared/kube) against the fake Kubernetes API: claims from a
// control-plane test bed, objects in the API server.
import { beforeEach, describe, expect, it } from 'vitest';
import { createTestbed, makePod, type Testbed } from '../../testkit/bed';
import { useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import type { NodeClaimObject } from '../api/nodeclaim-object';
import type { ControlPlaneDeps } from './deps';
import { mirrorNodeClaims } from './nodeclaim-mirror';
import { terminateClaimsOfDeletedNodePools } from './nodepool-deletion';
import { provision } from './provision';
import { startTermination } from './termination';

const bed = useKubeClusterBed();
const { api } = bed;
let t: Testbed;
let deps: ControlPlaneDeps;

beforeEach(async () => {
  t = createTestbed();
  t.cluster.addPod(makePod('web-0', { cpu: '3' }));
  await provision(t.deps);
  await t.settle(2 * 60_000);
  // The store and clock of the bed, the cluster behind the real adapter.
  deps = { ...t.deps, kube: bed.cluster };
});

const objects = () => api.list<NodeClaimObject>('nodeclaims');
const conditions = (o: NodeClaimObject | undefined) =>
  Object.fromEntries((o?.status?.conditions ?? []).map((c) => [c.type, c.status]));

describe('NodeClaim mirror', () => {
  it("creates a karpenter.sh/v1 NodeClaim for each claim, with the printer columns' labels and its status", async () => {
    const [claim] = await t.store.list({ states: ['Initialized'] });
    const result = await mirrorNodeClaims(deps);
    expect(result?.created).toEqual([claim?.name]);
    const [o] = objects();
    expect(o?.apiVersion).toBe('karpenter.sh/v1');
    expect(o?.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': claim?.instanceType,
      'karpenter.sh/capacity-type': 'on-demand',
      'topology.kubernetes.io/zone': claim?.zone,
      'karpenter.sh/nodepool': 'default',
      'app.kubernetes.io/managed-by': 'karpless',
    });
    expect(o?.spec.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
    expect(o?.status).toMatchObject({ providerID: claim?.providerID, nodeName: claim?.nodeName });
    expect(conditions(o)).toEqual({ Launched: 'True', Registered: 'True', Initialized: 'True', Ready: 'True' });
    // The status went through the status subresource.
    expect(api.requestsTo('PATCH', `/apis/karpenter.sh/v1/nodeclaims/${claim?.name}/status`)).toHaveLength(1);
  });

  it('writes nothing when nothing changed, and keeps condition transition times', async () => {
    await mirrorNodeClaims(deps);
    const before = objects()[0]?.status?.conditions;
    t.clock.advance(60_000);
    expect(await mirrorNodeClaims(deps)).toEqual({
      created: [],
      updated: [],
      deleted: [],
      foreign: [],
      terminating: [],
    });
    expect(objects()[0]?.status?.conditions).toEqual(before);
  });

  it('marks drift, consolidatability and disruption, and deletes the object once the claim is terminated', async () => {
    const [claim] = await t.store.list({ states: ['Initialized'] });
    if (!claim) throw new Error('no claim');
    await mirrorNodeClaims(deps, new Map([[claim.name, { drifted: 'NodePoolDrifted', consolidatable: true }]]));
    expect(conditions(objects()[0])).toMatchObject({ Drifted: 'True', Consolidatable: 'True' });
    await startTermination(t.deps, claim, { cause: 'Drifted', detail: 'NodePoolDrifted' });
    expect((await mirrorNodeClaims(deps))?.updated).toEqual([claim.name]);
    const disrupting = objects()[0]?.status?.conditions?.find((c) => c.type === 'Disrupting');
    expect(disrupting).toMatchObject({ status: 'True', reason: 'Drifted', message: 'NodePoolDrifted' });
    await t.settle(2 * 60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect((await mirrorNodeClaims(deps))?.deleted).toEqual([claim.name]);
    // Only the claim its evicted pod got since is left.
    const live = (await t.store.list({ states: ['Initialized'] })).map((c) => c.name);
    expect(objects().map((o) => o.metadata.name)).toEqual(live);
    expect(live).not.toContain(claim.name);
  });

  it('rebuilds what drifted: recreates a deleted object, rewrites an edited one, deletes orphans it owns only', async () => {
    const [claim] = await t.store.list({ states: ['Initialized'] });
    await mirrorNodeClaims(deps);
    const mine = objects()[0] as NodeClaimObject;
    api.put('nodeclaims', { ...mine, metadata: { ...mine.metadata, name: 'orphan' } });
    api.put('nodeclaims', {
      ...mine,
      metadata: { name: 'karpenter-abc', labels: { 'karpenter.sh/nodepool': 'default' } },
    });
    api.put('nodeclaims', { ...mine, spec: { ...mine.spec, requirements: [] } });
    expect(await mirrorNodeClaims(deps)).toEqual({
      created: [],
      updated: [claim?.name],
      deleted: ['orphan'],
      foreign: [],
      terminating: [],
    });
    expect(
      objects()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual([claim?.name, 'karpenter-abc'].sort());
    expect(api.get<NodeClaimObject>('nodeclaims', undefined, claim?.name ?? '')?.spec.requirements).toEqual(
      claim?.requirements,
    );
    api.remove('nodeclaims', undefined, claim?.name ?? '');
    expect((await mirrorNodeClaims(deps))?.created).toEqual([claim?.name]);
  });

  it("names the claim's NodePool by UID in an owner reference, and adds it once a claim from before UIDs is adopted", async () => {
    const [claim] = await t.store.list({ states: ['Initialized'] });
    if (!claim?.nodePoolUid) throw new Error('no claim with a NodePool UID');
    await mirrorNodeClaims(deps);
    const owner = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: 'default', uid: claim.nodePoolUid };
    expect(objects()[0]?.metadata.ownerReferences).toEqual([owner]);
    // Read back through the adapter, the reference is unchanged: the next pass writes nothing.
    expect((await mirrorNodeClaims(deps))?.updated).toEqual([]);

    // A claim stored before UIDs were recorded: no owner reference, until the cascade adopts it by name.
    const { nodePoolUid: _uid, ...legacy } = claim;
    await t.store.delete(claim);
    await t.store.create({ ...legacy, version: 1 });
    api.remove('nodeclaims', undefined, claim.name);
    await mirrorNodeClaims(deps);
    expect(objects()[0]?.metadata.ownerReferences).toBeUndefined();
    await terminateClaimsOfDeletedNodePools(t.deps);
    expect((await mirrorNodeClaims(deps))?.updated).toEqual([claim.name]);
    expect(objects()[0]?.metadata.ownerReferences).toEqual([owner]);
  });
});
