import { describe, expect, it } from 'vitest';
import { createTestbed, makePod } from '../../testkit/bed';
import type { NodeClaim } from '../api/nodeclaim';
import { isInitialized, reconcileNodes } from './lifecycle';
import { provision } from './provision';

const startupTaint = { key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' as const };

describe('reconcileNodes', () => {
  it('fails a claim whose node never registers, terminates its instance and re-plans its pods', async () => {
    const t = createTestbed({ registrationDelayMs: 60 * 60_000 });
    t.cluster.addPod(makePod('web-0'));
    const { launched } = await provision(t.deps);
    expect(launched).toHaveLength(1);
    t.clock.advance(14 * 60_000);
    expect((await reconcileNodes(t.deps)).timedOut).toEqual([]);
    t.clock.advance(2 * 60_000);
    const result = await reconcileNodes(t.deps);
    expect(result.timedOut).toEqual(launched);
    const claim = await t.store.get(launched[0] ?? '');
    expect(claim).toMatchObject({ state: 'Terminated', failure: { reason: 'RegistrationTimeout' } });
    expect(await t.cloud.list()).toEqual([]);
    expect(t.queue.kinds()).toEqual(['PodsPending']);
    // The re-plan launches a new claim for the pod.
    const [replan] = await t.pump();
    expect(replan?.kind).toBe('provision');
    expect(await t.cloud.list()).toHaveLength(1);
  });

  it('fails a claim that was never launched within the launch timeout', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    t.deps.cloud = Object.assign(Object.create(t.cloud), {
      create: async () => {
        throw new Error('Lambda timed out');
      },
    });
    await provision(t.deps);
    t.deps.cloud = t.cloud;
    t.clock.advance(5 * 60_000 + 1);
    const result = await reconcileNodes(t.deps);
    expect(result.timedOut).toHaveLength(1);
    expect((await t.store.list())[0]).toMatchObject({ state: 'Terminated', failure: { reason: 'LaunchTimeout' } });
  });

  it('takes karpenter.sh/unregistered off at registration and leaves taints other actors own', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    t.clock.advance(30_001);
    const [node] = await t.cluster.listNodes();
    if (!node) throw new Error('no node');
    // The kubelet registers with the unregistered taint; the node lifecycle controller owns not-ready.
    const unregistered = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' as const };
    const notReady = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' as const };
    node.spec.taints = [...(node.spec.taints ?? []), unregistered, notReady];
    const before = (node.spec.taints ?? []).filter((x) => x !== unregistered);
    const { registered } = await reconcileNodes(t.deps);
    expect(registered).toHaveLength(1);
    expect(t.cluster.getNode(node.metadata.name)?.spec.taints).toEqual(before);
    // Registration labels the node with its NodeClaim and pool (`kubectl get nodes -L karpless.dev/nodeclaim`).
    expect(t.cluster.getNode(node.metadata.name)?.metadata.labels).toMatchObject({
      'karpless.dev/nodeclaim': registered[0],
      'karpenter.sh/nodepool': 'default',
      'karpenter.sh/registered': 'true',
    });
    t.clock.advance(15_000);
    // not-ready is a known ephemeral taint: initialization waits for the node lifecycle controller to remove it.
    expect((await reconcileNodes(t.deps)).initialized).toEqual([]);
    t.cluster.updateNode(node.metadata.name, (n) => ({
      ...n,
      spec: { ...n.spec, taints: (n.spec.taints ?? []).filter((x) => x.key !== notReady.key) },
    }));
    const after = before.filter((x) => x !== notReady);
    expect((await reconcileNodes(t.deps)).initialized).toHaveLength(1);
    // Initialization labels the node and touches no taint.
    const initialized = t.cluster.getNode(node.metadata.name);
    expect(initialized?.spec.taints).toEqual(after);
    expect(initialized?.metadata.labels?.['karpenter.sh/initialized']).toBe('true');
  });

  it('waits for startup taints and requested extended resources before initializing', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    t.clock.advance(46_000);
    await reconcileNodes(t.deps);
    const claim = (await t.store.list())[0] as NodeClaim;
    const node = t.cluster.getNode(claim.nodeName ?? '');
    if (!node) throw new Error('no node');
    const withStartup = { ...claim, startupTaints: [startupTaint] };
    expect(isInitialized(claim, node)).toBe(true);
    node.spec.taints = [...(node.spec.taints ?? []), startupTaint];
    expect(isInitialized(withStartup, node)).toBe(false);
    node.spec.taints = node.spec.taints.filter((x) => x.key !== startupTaint.key);
    expect(isInitialized(withStartup, node)).toBe(true);
    const wantsGpu = { ...claim, requests: { ...claim.requests, 'nvidia.com/gpu': 1 } };
    expect(isInitialized(wantsGpu, node)).toBe(false);
    node.status = { ...node.status, allocatable: { ...node.status?.allocatable, 'nvidia.com/gpu': '1' } };
    expect(isInitialized(wantsGpu, node)).toBe(true);
    node.status.conditions = [{ type: 'Ready', status: 'False' }];
    expect(isInitialized(claim, node)).toBe(false);
  });

  it('leaves binding to kube-scheduler by default', async () => {
    // No simulated kube-scheduler here, so whatever binds must be Karpless.
    const t = createTestbed({ kubeScheduler: false });
    expect(t.deps.config.bindPods).toBe(false);
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    t.clock.advance(46_000);
    await reconcileNodes(t.deps);
    const result = await reconcileNodes(t.deps);
    expect(result.bound).toBe(0);
    expect((await t.store.list())[0]?.state).toBe('Initialized');
    expect(await t.cluster.listPendingPods()).toHaveLength(1);
  });

  it('binds the nominated pods itself once the node initializes when bindPods is opted in', async () => {
    const t = createTestbed({ kubeScheduler: false, config: { bindPods: true } });
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    t.clock.advance(31_000);
    expect((await reconcileNodes(t.deps)).bound).toBe(0);
    t.clock.advance(15_000);
    const result = await reconcileNodes(t.deps);
    expect(result.bound).toBe(1);
    const [claim] = await t.store.list();
    expect(t.cluster.getPod('default/web-0')?.spec.nodeName).toBe(claim?.nodeName);
  });

  it('terminates the instance of an initialized claim whose Node was deleted', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    await t.settle(60_000);
    const [claim] = await t.store.list({ states: ['Initialized'] });
    await t.cluster.deleteNode(claim?.nodeName ?? '');
    const result = await reconcileNodes(t.deps);
    expect(result.nodesDeleted).toEqual([claim?.name]);
    await t.pump();
    expect((await t.store.get(claim?.name ?? ''))?.state).toBe('Terminated');
    // The pod came back pending when its node went; the control loop gives it a new node.
    await t.settle(60_000);
    expect(await t.cluster.listPendingPods()).toEqual([]);
    const instances = await t.cloud.list();
    expect(instances).toHaveLength(1);
    expect(instances[0]?.instanceId).not.toBe(claim?.instanceId);
  });

  it('releases pods nominated to an initialized node once the nomination expires, when nobody binds them', async () => {
    const t = createTestbed({ kubeScheduler: false });
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    t.clock.advance(46_000);
    await reconcileNodes(t.deps);
    await reconcileNodes(t.deps);
    // Held while the nomination is fresh: nothing new is planned.
    expect((await provision(t.deps)).nominated).toBe(0);
    t.clock.advance(t.deps.config.nominationTtlMs + 1);
    // Expired: the pod is planned again (onto the same node, which still has room) rather than stranded.
    const again = await provision(t.deps);
    expect(again.created).toEqual([]);
    expect(again.nominated).toBe(1);
  });

  it('treats a bind conflict as fine', async () => {
    const t = createTestbed({ kubeScheduler: false, config: { bindPods: true } });
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    t.clock.advance(46_000);
    await reconcileNodes(t.deps);
    // kube-scheduler bound the pod elsewhere first.
    t.cluster.addNode({ kind: 'Node', metadata: { name: 'other' }, spec: {}, status: {} });
    await t.cluster.bindPod({ namespace: 'default', name: 'web-0' }, 'other');
    await expect(reconcileNodes(t.deps)).resolves.toMatchObject({ bound: 0 });
  });
});
