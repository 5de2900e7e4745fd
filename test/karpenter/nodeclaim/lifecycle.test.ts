// kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle launch_test.go, registration_test.go and
// initialization_test.go, case by case, read through the NodeClaim object the control plane mirrors
// (shared/controllers/nodeclaim-mirror.ts; docs/kubernetes.md, NodeClaim objects): Karpenter's status conditions are
// the object's, and the store's claim states behind them are the control plane's (shared/controllers/lifecycle.ts).
// Karpenter's tests set a NodeClaim's spec (startup taints, resource requests) by hand; here the stored claim is
// updated the same way.
import { describe, expect, it } from 'vitest';
import type { EC2NodeClass } from '../../../shared/api/karpenter';
import type { ConditionStatus, Taint } from '../../../shared/api/kube';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import type { NodeClaimObject } from '../../../shared/api/nodeclaim-object';
import { reconcileNodes } from '../../../shared/controllers/lifecycle';
import { mirrorNodeClaims } from '../../../shared/controllers/nodeclaim-mirror';
import { provision } from '../../../shared/controllers/provision';
import { startTermination } from '../../../shared/controllers/termination';
import { InsufficientCapacityError, LaunchError } from '../../../shared/errors';
import { createTestbed, makePod, type Testbed } from '../../../testkit/bed';
import { setNodeCondition } from '../../../testkit/repair';

const REGISTERED_AT = 30_001; // the simulated kubelet registers 30 s after launch
// and turns Ready 15 s later; taints are put on after that (the simulated kubelet stays NotReady on a Node another
// actor changed before it turned Ready).
const READY_AFTER = 15_000;

async function launched(): Promise<{ t: Testbed; claim: NodeClaim }> {
  const t = createTestbed();
  t.cluster.addPod(makePod('web-0'));
  await provision(t.deps);
  const [claim] = await t.store.list({ states: ['Launched'] });
  if (!claim) throw new Error('no launched claim');
  return { t, claim };
}

async function object(t: Testbed, name: string): Promise<NodeClaimObject | undefined> {
  await mirrorNodeClaims(t.deps);
  return (await t.cluster.listNodeClaimObjects()).find((o) => o.metadata.name === name);
}

async function conditions(t: Testbed, name: string): Promise<Record<string, ConditionStatus>> {
  const o = await object(t, name);
  return Object.fromEntries((o?.status?.conditions ?? []).map((c) => [c.type, c.status]));
}

/** Launched, then registered: the node is up, Ready comes READY_AFTER later. */
async function registered(): Promise<{ t: Testbed; claim: NodeClaim; node: string }> {
  const { t, claim } = await launched();
  t.clock.advance(REGISTERED_AT);
  await reconcileNodes(t.deps);
  const current = (await t.store.get(claim.name)) as NodeClaim;
  expect(current.state).toBe('Registered');
  return { t, claim: current, node: current.nodeName ?? '' };
}

const addTaint = (t: Testbed, node: string, taint: Taint) =>
  t.cluster.updateNode(node, (n) => ({ ...n, spec: { ...n.spec, taints: [...(n.spec.taints ?? []), taint] } }));
const removeTaint = (t: Testbed, node: string, key: string) =>
  t.cluster.updateNode(node, (n) => ({
    ...n,
    spec: { ...n.spec, taints: (n.spec.taints ?? []).filter((x) => x.key !== key) },
  }));
/** The bed's EC2NodeClass with a status saying Ready=False, as Karpless publishes it when a subnet selector matches
 * nothing. */
function notReady(t: Testbed): EC2NodeClass {
  const at = '2026-01-01T00:00:00Z';
  return {
    ...t.nodeClass,
    status: {
      subnets: [],
      securityGroups: [],
      amis: [],
      conditions: [
        {
          type: 'SubnetsReady',
          status: 'False',
          reason: 'SubnetsNotFound',
          message: 'no subnet matched',
          lastTransitionTime: at,
        },
        {
          type: 'Ready',
          status: 'False',
          reason: 'SubnetsNotFound',
          message: 'no subnet matched',
          lastTransitionTime: at,
        },
      ],
    },
  };
}

const stateOf = async (t: Testbed, name: string) => (await t.store.get(name))?.state;

describe('nodeclaim/lifecycle/launch_test.go: Launch', () => {
  it('should add the Launched status condition after creating the NodeClaim', async () => {
    const { t, claim } = await launched();
    expect(await conditions(t, claim.name)).toEqual({
      Launched: 'True',
      Registered: 'Unknown',
      Initialized: 'Unknown',
      Ready: 'Unknown',
    });
    const o = await object(t, claim.name);
    expect(o?.status?.providerID).toBe(claim.providerID);
  });

  it('should delete the nodeclaim if InsufficientCapacity is returned from the cloudprovider', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    t.cloud.failNextLaunch(new InsufficientCapacityError('no capacity', []) as unknown as LaunchError);
    await provision(t.deps);
    // The claim is dropped for re-planning, so no object is left for it.
    expect((await t.store.list()).filter((c) => c.state === 'Failed')).toEqual([]);
    await mirrorNodeClaims(t.deps);
    const live = await t.store.list();
    expect((await t.cluster.listNodeClaimObjects()).map((o) => o.metadata.name)).toEqual(live.map((c) => c.name));
  });

  it('should set nodeClaim status condition from the condition message received if error returned is CreateError (Karpless: the claim fails, no retry)', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    t.cloud.failNextLaunch(new LaunchError('unauthorized', 'not authorized to perform ec2:CreateFleet'));
    await provision(t.deps);
    const [claim] = await t.store.list({ states: ['Failed'] });
    if (!claim) throw new Error('no failed claim');
    const launchedCondition = (await object(t, claim.name))?.status?.conditions?.find((c) => c.type === 'Launched');
    expect(launchedCondition).toMatchObject({
      status: 'False',
      reason: 'unauthorized',
      message: 'not authorized to perform ec2:CreateFleet',
    });
    expect(await conditions(t, claim.name)).toMatchObject({ Ready: 'False' });
  });
});

describe('nodeclaim/lifecycle/launch_test.go: Launch, NodeClassNotReady', () => {
  it('should delete the nodeclaim if NodeClassNotReady is returned from the cloudprovider', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    // A throttled launch leaves the claim Pending, as a NodeClaim waits for its launch; then its class turns not ready.
    t.cloud.failNextLaunch(new LaunchError('throttled', 'Request limit exceeded'));
    await provision(t.deps);
    const [pending] = await t.store.list({ states: ['Pending'] });
    if (!pending) throw new Error('no pending claim');
    await mirrorNodeClaims(t.deps);
    expect((await t.cluster.listNodeClaimObjects()).map((o) => o.metadata.name)).toEqual([pending.name]);
    t.cluster.upsert(notReady(t));
    t.clock.advance(31_000);
    const relaunch = await provision(t.deps);
    expect(relaunch.dropped).toEqual([pending.name]);
    expect(relaunch.launched).toEqual([]);
    expect(await t.cloud.list()).toEqual([]);
    expect(await t.store.get(pending.name)).toBeUndefined();
    await mirrorNodeClaims(t.deps);
    expect(await t.cluster.listNodeClaimObjects()).toEqual([]);
    // Its pod is not planned onto the pool again while the class stays not ready.
    await t.settle(60_000);
    expect(await t.store.list()).toEqual([]);
    expect(await t.cloud.list()).toEqual([]);
  });

  it('launches nothing for a NodePool whose EC2NodeClass is not ready, and names why', async () => {
    const t = createTestbed();
    t.cluster.upsert(notReady(t));
    t.cluster.addPod(makePod('web-0'));
    const result = await provision(t.deps);
    expect(result.created).toEqual([]);
    const event = t.cluster.events.find((e) => e.reason === 'FailedScheduling');
    expect(event?.message).toContain(
      'NodePool default skipped: EC2NodeClass default is not ready (SubnetsNotFound: no subnet matched)',
    );
    expect(await t.cloud.list()).toEqual([]);
  });
});

describe('nodeclaim/lifecycle/liveness_test.go: Liveness (read through the NodeClaim object)', () => {
  const LAUNCH_TIMEOUT = 5 * 60_000;
  const REGISTRATION_TIMEOUT = 15 * 60_000;

  async function failedLaunch(): Promise<{ t: Testbed; claim: NodeClaim }> {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    t.cloud.failNextLaunch(new LaunchError('unauthorized', 'not authorized to perform ec2:CreateFleet'));
    await provision(t.deps);
    const [claim] = await t.store.list({ states: ['Failed'] });
    if (!claim) throw new Error('no failed claim');
    return { t, claim };
  }

  it("should delete the NodeClaim when the NodeClaim hasn't launched past the launch timeout", async () => {
    const { t, claim } = await failedLaunch();
    expect(await object(t, claim.name)).toBeDefined();
    t.clock.advance(LAUNCH_TIMEOUT);
    expect(await object(t, claim.name)).toBeUndefined();
    // The claim stays in the store as the failure's record, and the object is not rebuilt from it.
    expect((await t.store.get(claim.name))?.state).toBe('Failed');
    t.clock.advance(60_000);
    expect(await object(t, claim.name)).toBeUndefined();
  });

  it("should not delete the NodeClaim when the NodeClaim hasn't launched before the launch timeout", async () => {
    const { t, claim } = await failedLaunch();
    t.clock.advance(LAUNCH_TIMEOUT - 1_000);
    expect(await conditions(t, claim.name)).toMatchObject({ Launched: 'False' });
  });

  it("should delete the NodeClaim when a launch that keeps being retried hasn't launched past the launch timeout", async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    t.cloud.failNextLaunch(new LaunchError('throttled', 'Request limit exceeded'));
    await provision(t.deps);
    const [claim] = await t.store.list({ states: ['Pending'] });
    if (!claim) throw new Error('no pending claim');
    expect(await conditions(t, claim.name)).toMatchObject({ Launched: 'Unknown' });
    t.clock.advance(LAUNCH_TIMEOUT + 1_000);
    await reconcileNodes(t.deps);
    expect(await object(t, claim.name)).toBeUndefined();
  });

  it("should delete the nodeClaim when the Node hasn't registered past the registration timeout", async () => {
    const t = createTestbed({ registrationDelayMs: 60 * 60_000 });
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    const [claim] = await t.store.list({ states: ['Launched'] });
    if (!claim) throw new Error('no launched claim');
    t.clock.advance(REGISTRATION_TIMEOUT - 1_000);
    await reconcileNodes(t.deps);
    expect(await conditions(t, claim.name)).toMatchObject({ Launched: 'True', Registered: 'Unknown' });
    t.clock.advance(2_000);
    await reconcileNodes(t.deps);
    expect(await object(t, claim.name)).toBeUndefined();
    expect(await t.cloud.get(claim.instanceId ?? '')).toMatchObject({ state: 'terminated' });
  });

  it("shouldn't delete the nodeClaim when the node has registered past the registration timeout", async () => {
    const { t, claim } = await launched();
    t.clock.advance(REGISTERED_AT);
    await reconcileNodes(t.deps);
    t.clock.advance(REGISTRATION_TIMEOUT + 1_000);
    await reconcileNodes(t.deps);
    expect(await conditions(t, claim.name)).toMatchObject({ Registered: 'True' });
  });
});

describe('nodeclaim/lifecycle/registration_test.go: Registration', () => {
  it('should sync the karpenter.sh/registered label to the Node and remove the karpenter.sh/unregistered taint when the Node comes online', async () => {
    const { t, claim, node } = await registered();
    const n = t.cluster.getNode(node);
    expect(n?.metadata.labels?.['karpenter.sh/registered']).toBe('true');
    expect((n?.spec.taints ?? []).map((x) => x.key)).not.toContain('karpenter.sh/unregistered');
    expect(await conditions(t, claim.name)).toMatchObject({ Launched: 'True', Registered: 'True' });
    expect((await object(t, claim.name))?.status?.nodeName).toBe(node);
  });

  it('should sync the labels to the Node when the Node comes online', async () => {
    const { t, claim, node } = await registered();
    expect(t.cluster.getNode(node)?.metadata.labels).toMatchObject({
      'karpenter.sh/nodepool': 'default',
      'node.kubernetes.io/instance-type': claim.instanceType,
      'topology.kubernetes.io/zone': claim.zone,
      'karpenter.sh/capacity-type': claim.capacityType,
    });
  });
});

describe('nodeclaim/lifecycle/initialization_test.go: Initialization', () => {
  it("shouldn't consider the nodeClaim initialized when it has not registered", async () => {
    const { t, claim } = await launched();
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Launched');
    expect(await conditions(t, claim.name)).toMatchObject({ Registered: 'Unknown', Initialized: 'Unknown' });
  });

  it('should add the initialization label to the node when the nodeClaim is initialized', async () => {
    const { t, claim, node } = await registered();
    t.clock.advance(READY_AFTER);
    await reconcileNodes(t.deps);
    expect(t.cluster.getNode(node)?.metadata.labels?.['karpenter.sh/initialized']).toBe('true');
    expect(await conditions(t, claim.name)).toEqual({
      Launched: 'True',
      Registered: 'True',
      Initialized: 'True',
      Ready: 'True',
    });
  });

  it('should not consider the Node to be initialized when the status of the Node is NotReady', async () => {
    const { t, claim, node } = await registered();
    t.clock.advance(READY_AFTER);
    setNodeCondition(t, node, 'Ready', 'False');
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Registered');
    expect(await conditions(t, claim.name)).toMatchObject({ Initialized: 'Unknown', Ready: 'Unknown' });
  });

  it("should not consider the Node to be initialized when all requested resources aren't registered", async () => {
    const { t, claim } = await registered();
    await t.store.update(claim, { requests: { ...claim.requests, 'fake.com/vendor-a': 1 } });
    t.clock.advance(READY_AFTER);
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Registered');
  });

  it('should consider the node to be initialized once all the resources are registered', async () => {
    const { t, claim, node } = await registered();
    await t.store.update(claim, { requests: { ...claim.requests, 'fake.com/vendor-a': 1 } });
    t.clock.advance(READY_AFTER);
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Registered');
    t.cluster.updateNode(node, (n) => ({
      ...n,
      status: { ...n.status, allocatable: { ...n.status?.allocatable, 'fake.com/vendor-a': '2' } },
    }));
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Initialized');
    expect(await conditions(t, claim.name)).toMatchObject({ Initialized: 'True' });
  });

  const startupTaint: Taint = { key: 'example.com/startup', value: 'true', effect: 'NoSchedule' };

  it("should not consider the Node to be initialized when all startupTaints aren't removed", async () => {
    const { t, claim, node } = await registered();
    await t.store.update(claim, { startupTaints: [startupTaint] });
    t.clock.advance(READY_AFTER);
    addTaint(t, node, startupTaint);
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Registered');
  });

  it('should consider the Node to be initialized once the startupTaints are removed', async () => {
    const { t, claim, node } = await registered();
    await t.store.update(claim, { startupTaints: [startupTaint] });
    t.clock.advance(READY_AFTER);
    addTaint(t, node, startupTaint);
    await reconcileNodes(t.deps);
    removeTaint(t, node, startupTaint.key);
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Initialized');
  });

  it.each([
    [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }],
    [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }],
    [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }],
    [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }],
  ] as [Taint][])(
    "should not consider the Node to be initialized when all ephemeralTaints aren't removed, and should once they are: %o",
    async (taint) => {
      const { t, claim, node } = await registered();
      t.clock.advance(READY_AFTER);
      addTaint(t, node, taint);
      await reconcileNodes(t.deps);
      expect(await stateOf(t, claim.name)).toBe('Registered');
      removeTaint(t, node, taint.key);
      await reconcileNodes(t.deps);
      expect(await stateOf(t, claim.name)).toBe('Initialized');
    },
  );

  it('should not consider the Node to be initialized while a readiness.k8s.io/ taint is present, and initialize once it is removed', async () => {
    const { t, claim, node } = await registered();
    t.clock.advance(READY_AFTER);
    addTaint(t, node, { key: 'readiness.k8s.io/network-ready', value: 'pending', effect: 'NoSchedule' });
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Registered');
    expect(await conditions(t, claim.name)).toMatchObject({ Initialized: 'Unknown' });
    removeTaint(t, node, 'readiness.k8s.io/network-ready');
    await reconcileNodes(t.deps);
    expect(await stateOf(t, claim.name)).toBe('Initialized');
  });
});

describe('disruption/suite_test.go: the DisruptionReason condition', () => {
  it.each(['Empty', 'Underutilized', 'Drifted'] as const)(
    'should add and remove taints from NodeClaims that fail to disrupt: a %s command sets DisruptionReason',
    async (cause) => {
      const { t, claim } = await registered();
      t.clock.advance(READY_AFTER);
      await reconcileNodes(t.deps);
      const initialized = (await t.store.get(claim.name)) as NodeClaim;
      await startTermination(t.deps, initialized, { cause });
      const o = await object(t, claim.name);
      expect(o?.status?.conditions?.find((c) => c.type === 'DisruptionReason')).toMatchObject({
        status: 'True',
        reason: cause,
        message: cause,
      });
      expect(await conditions(t, claim.name)).toMatchObject({ Disrupting: 'True' });
    },
  );

  it.each(['Expired', 'Unhealthy', 'Interrupted'] as const)(
    'leaves DisruptionReason off a claim ended by %s, as Karpenter deletes such a NodeClaim without it',
    async (cause) => {
      const { t, claim } = await registered();
      t.clock.advance(READY_AFTER);
      await reconcileNodes(t.deps);
      await startTermination(t.deps, (await t.store.get(claim.name)) as NodeClaim, { cause });
      const c = await conditions(t, claim.name);
      expect(c.Disrupting).toBe('True');
      expect(c.DisruptionReason).toBeUndefined();
    },
  );
});
