import { describe, expect, it } from 'vitest';
import { pod as buildPod, ownedBy } from '../../testkit/builders';
import { fixtureClaim, fixtureNodeClass, fixtureNodePool, fixtureType } from '../../testkit/sim-fixtures';
import type { Pod, PodDisruptionBudget } from '../api/kube';
import { connectCloudToCluster } from './connect';
import { SimCloud } from './sim-cloud';
import { SimCluster } from './sim-cluster';
import { VirtualClock } from './virtual-clock';

const pod = (name: string, labels: Record<string, string> = { app: 'web' }, nodeName?: string): Pod =>
  buildPod({
    typed: true,
    name,
    labels,
    ownerReferences: ownedBy('ReplicaSet', 'web', { controller: true }),
    containers: [{ name: 'c' }],
    ...(nodeName ? { nodeName } : {}),
  });

const pdb = (spec: PodDisruptionBudget['spec']): PodDisruptionBudget => ({
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web-pdb', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
});

const node = (name: string) => ({ kind: 'Node' as const, metadata: { name }, spec: {} });

function setup() {
  const clock = new VirtualClock(0);
  const cluster = new SimCluster({ clock, registrationDelayMs: 30_000, readyDelayMs: 10_000 });
  return { clock, cluster };
}

describe('SimCluster', () => {
  it('registers a launched instance as a Node after the delay, Ready later, with the claim labels and taints', async () => {
    const { clock, cluster } = setup();
    const type = fixtureType('m5.large', 2, [{ zone: 'us-east-1b', capacityType: 'spot', price: 0.04 }]);
    const cloud = new SimCloud({ clock, instanceTypes: () => [type] });
    connectCloudToCluster(cloud, cluster);
    const changes: string[] = [];
    cluster.onChange((c) => changes.push(c.type));
    const instance = await cloud.create({
      claim: fixtureClaim('general-1'),
      nodePool: fixtureNodePool,
      nodeClass: fixtureNodeClass,
      instanceTypes: [type],
    });
    clock.advance(29_999);
    expect(await cluster.listNodes()).toHaveLength(0);
    clock.advance(1);
    const [registered] = await cluster.listNodes();
    expect(registered?.spec.providerID).toBe(instance.providerID);
    expect(registered?.metadata.labels).toMatchObject({
      team: 'web',
      'topology.kubernetes.io/zone': 'us-east-1b',
      'karpenter.sh/capacity-type': 'spot',
      'karpenter.sh/nodepool': 'general',
      'kubernetes.io/hostname': registered?.metadata.name,
    });
    expect(registered?.spec.taints?.map((t) => t.key)).toEqual(['dedicated', 'node.cilium.io/agent-not-ready']);
    expect(registered?.status?.allocatable).toMatchObject({ cpu: '1930m', pods: '29' });
    expect(registered?.status?.conditions?.[0]?.status).toBe('False');
    clock.advance(10_000);
    expect(registered?.status?.conditions?.[0]?.status).toBe('True');
    expect(changes).toEqual(['node-registered', 'node-ready']);

    await cloud.delete(instance.instanceId);
    expect(await cluster.listNodes()).toHaveLength(0);
  });

  it('turns a Node Ready that was edited before it was, and keeps a Ready condition someone else set', async () => {
    const { clock, cluster } = setup();
    const type = fixtureType('m5.large', 2, [{ zone: 'us-east-1b', capacityType: 'spot', price: 0.04 }]);
    const cloud = new SimCloud({ clock, instanceTypes: () => [type] });
    connectCloudToCluster(cloud, cluster);
    const launch = (claim: string) =>
      cloud.create({
        claim: fixtureClaim(claim),
        nodePool: fixtureNodePool,
        nodeClass: fixtureNodeClass,
        instanceTypes: [type],
      });
    await launch('general-1');
    clock.advance(30_000);
    const [first] = await cluster.listNodes();
    const name = first?.metadata.name as string;
    // Another actor labels the Node (a new object) before the kubelet reports Ready.
    cluster.updateNode(name, (n) => ({ ...n, metadata: { ...n.metadata, labels: { ...n.metadata.labels, x: 'y' } } }));
    clock.advance(10_000);
    const edited = (await cluster.listNodes()).find((n) => n.metadata.name === name);
    expect(edited?.metadata.labels?.x).toBe('y');
    expect(edited?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    await launch('general-2');
    clock.advance(30_000);
    const second = (await cluster.listNodes()).find((n) => n.metadata.name !== name);
    const other = second?.metadata.name as string;
    // A scenario's step declares the Node unhealthy before the kubelet's Ready: the kubelet does not overwrite it.
    cluster.updateNode(other, (n) => ({
      ...n,
      status: { ...n.status, conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }] },
    }));
    clock.advance(10_000);
    const unhealthy = (await cluster.listNodes()).find((n) => n.metadata.name === other);
    expect(unhealthy?.status?.conditions).toEqual([{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }]);
  });

  it('binds pending pods to existing nodes and reports conflicts and missing pods', async () => {
    const { cluster } = setup();
    cluster.load([pod('a'), pod('b'), node('n1'), node('n2')]);
    expect((await cluster.listPendingPods()).map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(await cluster.bindPod({ namespace: 'default', name: 'a' }, 'n1')).toBe('bound');
    expect(await cluster.bindPod({ namespace: 'default', name: 'a' }, 'n1')).toBe('bound');
    expect(await cluster.bindPod({ namespace: 'default', name: 'a' }, 'n2')).toBe('conflict');
    expect(await cluster.bindPod({ namespace: 'default', name: 'b' }, 'nope')).toBe('conflict');
    expect(await cluster.bindPod({ namespace: 'default', name: 'zz' }, 'n1')).toBe('gone');
    expect((await cluster.listPods({ nodeName: 'n1' })).map((p) => p.metadata.name)).toEqual(['a']);
    expect(cluster.getPod('default/a')?.status?.phase).toBe('Running');
  });

  it('blocks an eviction the PDB does not allow, and records why', async () => {
    const { cluster } = setup();
    cluster.load([pod('a', undefined, 'n1'), pod('b', undefined, 'n1'), node('n1'), pdb({ minAvailable: 2 })]);
    expect(await cluster.evict({ namespace: 'default', name: 'a' })).toBe('blocked');
    expect(cluster.events).toEqual([
      expect.objectContaining({ reason: 'EvictionBlocked', type: 'Warning', involved: expect.anything() }),
    ]);
    expect((await cluster.listPodDisruptionBudgets())[0]?.status?.disruptionsAllowed).toBe(0);
  });

  it('evicts within the budget; the controller brings the pod back pending', async () => {
    const { cluster } = setup();
    cluster.load([pod('a', undefined, 'n1'), pod('b', undefined, 'n1'), node('n1'), pdb({ maxUnavailable: 1 })]);
    const uid = cluster.getPod('default/a')?.metadata.uid;
    expect(await cluster.evict({ namespace: 'default', name: 'a' })).toBe('evicted');
    const replaced = cluster.getPod('default/a');
    expect(replaced?.spec.nodeName).toBeUndefined();
    expect(replaced?.metadata.uid).not.toBe(uid);
    // One pod is now unavailable, so the budget is spent.
    expect(await cluster.evict({ namespace: 'default', name: 'b' })).toBe('blocked');
    expect(await cluster.evict({ namespace: 'default', name: 'missing' })).toBe('gone');
  });

  it('percent budgets round up and unselected pods are not covered', async () => {
    const { cluster } = setup();
    cluster.load([
      pod('a', undefined, 'n1'),
      pod('b', undefined, 'n1'),
      pod('c', undefined, 'n1'),
      pod('other', { app: 'db' }, 'n1'),
      node('n1'),
      pdb({ minAvailable: '50%' }),
    ]);
    expect((await cluster.listPodDisruptionBudgets())[0]?.status?.disruptionsAllowed).toBe(1);
    expect(await cluster.evict({ namespace: 'default', name: 'other' })).toBe('evicted');
  });

  it('cordons, taints, syncs and deletes nodes; deleting a node re-queues its controller pods', async () => {
    const { cluster } = setup();
    cluster.load([node('n1'), pod('a', undefined, 'n1')]);
    await cluster.cordon('n1');
    await cluster.setDisruptedTaint('n1', true);
    expect(cluster.getNode('n1')?.spec).toMatchObject({
      unschedulable: true,
      taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }],
    });
    await cluster.setDisruptedTaint('n1', false);
    expect(cluster.getNode('n1')?.spec.taints).toEqual([]);
    await cluster.syncNode('n1', { labels: { a: 'b' }, taints: [{ key: 'x', effect: 'NoSchedule' }] });
    expect(cluster.getNode('n1')?.metadata.labels).toEqual({ a: 'b' });
    await cluster.deleteNode('n1');
    expect(await cluster.listNodes()).toEqual([]);
    expect((await cluster.listPendingPods()).map((p) => p.metadata.name)).toEqual(['a']);
  });
});
