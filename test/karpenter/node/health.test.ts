// kubernetes-sigs/karpenter pkg/controllers/node/health/suite_test.go, case by case, on the control plane's repair
// (shared/controllers/repair.ts) over the simulated cluster. Karpenter's "NodeClaim deletion timestamp set" is a claim
// turned Draining here; its termination-timestamp annotation is the drain's deadline. The fake cloud provider's
// BadNode policy is passed as the policy list; the AWS provider's policies are checked in the last block.
import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import { disruptionSweep } from '../../../shared/controllers/disruption';
import { repairUnhealthyNodes } from '../../../shared/controllers/repair';
import { startTermination } from '../../../shared/controllers/termination';
import { planRepairs } from '../../../shared/disruption/repair';
import { DISRUPTION_SETTINGS_DEFAULTS } from '../../../shared/disruption/settings';
import { loadScenario } from '../../../shared/sim/scenario/parse';
import type { TimelineEntry } from '../../../shared/sim/scenario/recorder';
import { testNodePool } from '../../../testkit/bed';
import {
  allClaims,
  apply,
  deployment,
  disrupted,
  nodeClass,
  nodePool,
  offset,
  run,
  scenario,
  step,
} from '../../../testkit/karpenter';
import { BAD_NODE_POLICY, MINUTE, repairBed, setNodeCondition } from '../../../testkit/repair';

const policies = BAD_NODE_POLICY;
const stateOf = async (b: { t: { store: { get(n: string): Promise<NodeClaim | undefined> } } }, c: NodeClaim) =>
  (await b.t.store.get(c.name))?.state;

describe('node/health/suite_test.go: Reconciliation', () => {
  it('should delete nodes that are unhealthy by the cloud provider', async () => {
    const b = await repairBed(1);
    const [node, claim] = [b.nodes[0]?.metadata.name ?? '', b.claims[0] as NodeClaim];
    setNodeCondition(b.t, node, 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).repaired).toEqual([claim.name]);
    expect(await b.t.store.get(claim.name)).toMatchObject({
      state: 'Draining',
      disruption: { cause: 'Unhealthy', detail: 'node condition BadNode=False for 60m (tolerated 30m)' },
    });
  });

  it('should not delete node when unhealthy type does not match cloud provider passed in value', async () => {
    const b = await repairBed(1);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'FakeHealthyNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).repaired).toEqual([]);
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Initialized');
  });

  it('should not delete node when health status does not match cloud provider passed in value', async () => {
    const b = await repairBed(1);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'True');
    b.t.clock.advance(60 * MINUTE);
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).repaired).toEqual([]);
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Initialized');
  });

  it('should not delete node when health duration is not reached', async () => {
    const b = await repairBed(1);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'False');
    b.t.clock.advance(20 * MINUTE);
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).repaired).toEqual([]);
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Initialized');
  });

  it('should set annotation termination grace period when force termination is started', async () => {
    const b = await repairBed(1);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    await repairUnhealthyNodes(b.t.deps, { policies });
    const claim = await b.t.store.get(b.claims[0]?.name ?? '');
    expect(claim?.drain?.deadline).toBe(b.t.clock.iso());
  });

  it('should not respect termination grace period if set on the nodepool', async () => {
    const b = await repairBed(1, { nodePool: testNodePool('default', undefined, { terminationGracePeriod: '2h' }) });
    const name = b.nodes[0]?.metadata.name ?? '';
    setNodeCondition(b.t, name, 'BadNode', 'False');
    // Already draining (a drift, say) with its grace period two hours out.
    const draining = await startTermination(b.t.deps, b.claims[0] as NodeClaim, {
      cause: 'Drifted',
      deadline: new Date(b.t.clock.now() + 120 * MINUTE).toISOString(),
    });
    expect(draining?.state).toBe('Draining');
    b.t.clock.advance(60 * MINUTE);
    const result = await repairUnhealthyNodes(b.t.deps, { policies });
    expect(result.hastened).toEqual([b.claims[0]?.name]);
    expect((await b.t.store.get(b.claims[0]?.name ?? ''))?.drain?.deadline).toBe(b.t.clock.iso());
  });

  it('should not update termination grace period if set before the current time', async () => {
    const b = await repairBed(1);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    const past = new Date(b.t.clock.now() - 3 * MINUTE).toISOString();
    await startTermination(b.t.deps, b.claims[0] as NodeClaim, { cause: 'Drifted', deadline: past });
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).hastened).toEqual([]);
    expect((await b.t.store.get(b.claims[0]?.name ?? ''))?.drain?.deadline).toBe(past);
  });

  it('should return the requeue interval for the condition closest to its terminationDuration', async () => {
    const b = await repairBed(1);
    const node = b.nodes[0]?.metadata.name ?? '';
    const start = b.t.clock.now();
    setNodeCondition(b.t, node, 'ValidUnhealthyCondition', 'False');
    setNodeCondition(b.t, node, 'BadNode', 'False');
    b.t.clock.advance(27 * MINUTE);
    const result = await repairUnhealthyNodes(b.t.deps, {
      policies: [
        { conditionType: 'BadNode', conditionStatus: 'False', tolerationMs: 60 * MINUTE },
        { conditionType: 'ValidUnhealthyCondition', conditionStatus: 'False', tolerationMs: 30 * MINUTE },
      ],
    });
    expect(result.repaired).toEqual([]);
    expect((result.nextRepairAt ?? 0) - b.t.clock.now()).toBe(3 * MINUTE);
    expect(result.nextRepairAt).toBe(start + 30 * MINUTE);
  });

  it('should return the requeue interval for the time between now and when the nodeClaim termination time', async () => {
    const b = await repairBed(1);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'False');
    b.t.clock.advance(27 * MINUTE);
    const result = await repairUnhealthyNodes(b.t.deps, { policies });
    expect((result.nextRepairAt ?? 0) - b.t.clock.now()).toBe(3 * MINUTE);
  });
});

describe('node/health/suite_test.go: Forceful termination', () => {
  it('should ignore node disruption budgets', async () => {
    const pool = testNodePool();
    pool.spec.disruption = { ...pool.spec.disruption, budgets: [{ nodes: '0' }] };
    const b = await repairBed(1, { nodePool: pool });
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).repaired).toHaveLength(1);
  });

  it('should ignore do-not-disrupt on a node (and on its pods: the drain does not wait for them)', async () => {
    const b = await repairBed(1, { pod: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } });
    const node = b.nodes[0]?.metadata.name ?? '';
    b.t.cluster.updateNode(node, (n) => ({
      ...n,
      metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, 'karpenter.sh/do-not-disrupt': 'true' } },
    }));
    setNodeCondition(b.t, node, 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).repaired).toHaveLength(1);
    await b.t.pump();
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Terminated');
    expect(await b.t.cloud.list()).toEqual([]);
  });

  it('should ignore unhealthy nodes if more then 20% of the nodes are unhealthy in a nodepool', async () => {
    const b = await repairBed(10);
    for (const n of b.nodes.slice(0, 3)) setNodeCondition(b.t, n.metadata.name, 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    const result = await repairUnhealthyNodes(b.t.deps, { policies });
    expect(result.repaired).toEqual([]);
    expect(result.blocked).toHaveLength(3);
    for (const c of b.claims) expect(await stateOf(b, c)).toBe('Initialized');
    const blocked = b.t.cluster.events.filter((e) => e.reason === 'NodeRepairBlocked');
    expect(blocked.map((e) => [e.type, e.involved.name, e.message]).sort()).toEqual(
      b.nodes
        .slice(0, 3)
        .map((n) => ['Warning', n.metadata.name, 'more than 20% nodes are unhealthy in the nodepool'])
        .sort(),
    );
  });

  it('should ignore unhealthy nodes if more then 20% of the nodes are unhealthy in a cluster (Karpless: per NodePool only)', async () => {
    // Karpenter applies the cluster-wide 20 % to NodeClaims without a NodePool. Karpless has no such claims (every
    // claim is written by a NodePool), so three unhealthy nodes out of ten, each the only node of its own NodePool,
    // are all repaired where Karpenter, counting the cluster, would hold them.
    const b = await repairBed(10);
    const pool = (i: number) => `pool-${i}`;
    const nodes = b.nodes.map((n, i) => ({
      ...n,
      metadata: { ...n.metadata, labels: { ...n.metadata.labels, 'karpenter.sh/nodepool': pool(i) } },
      status: {
        ...n.status,
        conditions: [
          ...(n.status?.conditions ?? []),
          ...(i < 3 ? [{ type: 'BadNode', status: 'False' as const, lastTransitionTime: b.t.clock.iso() }] : []),
        ],
      },
    }));
    const claims = b.claims.map((c, i) => ({ ...c, nodePool: pool(i) }));
    const plan = planRepairs({ now: b.t.clock.now() + 60 * MINUTE, nodes, claims, policies });
    expect(plan.blocked).toEqual([]);
    expect(plan.repairs.map((r) => r.nodeClaim.name)).toEqual(b.claims.slice(0, 3).map((c) => c.name));
    // In one NodePool the same three are held, as in Karpenter's NodePool case.
    const onePool = planRepairs({
      now: b.t.clock.now() + 60 * MINUTE,
      nodes: nodes.map((n) => ({
        ...n,
        metadata: { ...n.metadata, labels: { ...n.metadata.labels, 'karpenter.sh/nodepool': 'default' } },
      })),
      claims: b.claims,
      policies,
    });
    expect(onePool.repairs).toEqual([]);
    expect(onePool.blocked).toHaveLength(3);
  });

  it('should consider round up when there is a low number of nodes for a nodepool', async () => {
    const b = await repairBed(3);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    expect((await repairUnhealthyNodes(b.t.deps, { policies })).repaired).toEqual([b.claims[0]?.name]);
  });
});

describe('node/health/suite_test.go: Metrics', () => {
  it('should fire a karpenter_nodeclaims_disrupted_total metric when unhealthy', async () => {
    const b = await repairBed(1);
    const metrics: [string, number, Record<string, string> | undefined][] = [];
    b.t.deps.metric = (name, value, _unit, dimensions) => metrics.push([name, value, dimensions]);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'BadNode', 'False');
    b.t.clock.advance(60 * MINUTE);
    await repairUnhealthyNodes(b.t.deps, { policies });
    expect(metrics).toContainEqual(['NodeClaimsDisrupted', 1, { reason: 'unhealthy', nodePool: 'default' }]);
    expect(metrics).toContainEqual(['NodeClaimsUnhealthyDisrupted', 1, { condition: 'bad_node', nodePool: 'default' }]);
  });
});

describe("aws/karpenter-provider-aws RepairPolicies, through the Sweep tick's disruption sweep", () => {
  it('repairs a node whose Ready condition is Unknown for 30 minutes, not before, and launches a replacement', async () => {
    const b = await repairBed(1);
    const node = b.nodes[0]?.metadata.name ?? '';
    setNodeCondition(b.t, node, 'Ready', 'Unknown');
    b.t.clock.advance(29 * MINUTE);
    expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([]);
    b.t.clock.advance(MINUTE);
    expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([b.claims[0]?.name]);
    await b.t.settle(2 * MINUTE);
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Terminated');
    // Its pod went pending with the node and now runs on a new one.
    const live = await b.t.store.list({ states: ['Initialized'] });
    expect(live).toHaveLength(1);
    expect(live[0]?.name).not.toBe(b.claims[0]?.name);
    expect(await b.t.cluster.listPendingPods()).toEqual([]);
  });

  it('tolerates AcceleratedHardwareReady=False for 10 minutes and the agent conditions for 30', async () => {
    const b = await repairBed(6);
    const [gpu, storage, net, kernel, runtime] = b.nodes.map((n) => n.metadata.name);
    setNodeCondition(b.t, gpu ?? '', 'AcceleratedHardwareReady', 'False');
    b.t.clock.advance(10 * MINUTE);
    expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([b.claims[0]?.name]);
    // Each repaired node is terminated before the next turns unhealthy, so the pool stays under its 20 %.
    await b.t.pump();
    for (const [i, [n, type]] of (
      [
        [storage, 'StorageReady'],
        [net, 'NetworkingReady'],
        [kernel, 'KernelReady'],
        [runtime, 'ContainerRuntimeReady'],
      ] as const
    ).entries()) {
      setNodeCondition(b.t, n ?? '', type, 'False');
      b.t.clock.advance(29 * MINUTE);
      expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([]);
      b.t.clock.advance(MINUTE);
      expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([b.claims[i + 1]?.name]);
      await b.t.pump();
    }
  });

  it('does nothing while the NodeRepair setting is off (Karpenter: the NodeRepair feature gate, off by default)', async () => {
    const b = await repairBed(1, { nodeRepair: false });
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'Ready', 'False');
    b.t.clock.advance(60 * MINUTE);
    expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([]);
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Initialized');
  });

  it('never repairs on a progress-only run (a NodeChanged the forwarder may have sent)', async () => {
    const b = await repairBed(1);
    setNodeCondition(b.t, b.nodes[0]?.metadata.name ?? '', 'Ready', 'False');
    b.t.clock.advance(60 * MINUTE);
    expect((await disruptionSweep(b.t.deps, { progressOnly: true })).repair).toBeUndefined();
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Initialized');
  });
});

// aws/karpenter-provider-aws test/suites/integration/repair_policy_test.go: each condition set in the past beyond its
// toleration (31 minutes, 11 for accelerated hardware) on the node of a do-not-disrupt pod; the next sweep repairs
// it and the pod runs again on a new node. The three forceful cases run through the real handlers in
// test/e2e/repair.e2e.test.ts.
describe('test/suites/integration/repair_policy_test.go: Repair Policy Conditions', () => {
  it.each([
    ['Node Ready False', 'Ready', 'False', 31],
    ['Node Ready Unknown', 'Ready', 'Unknown', 31],
    ['Node AcceleratedHardwareReady False', 'AcceleratedHardwareReady', 'False', 11],
    ['Node StorageReady False', 'StorageReady', 'False', 31],
    ['Node NetworkingReady False', 'NetworkingReady', 'False', 31],
    ['Node KernelReady False', 'KernelReady', 'False', 31],
    ['Node ContainerRuntimeReady False', 'ContainerRuntimeReady', 'False', 31],
  ] as const)('%s', async (_entry, type, status, minutesAgo) => {
    const b = await repairBed(1, { pod: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } });
    const [node, claim] = [b.nodes[0]?.metadata.name ?? '', b.claims[0] as NodeClaim];
    setNodeCondition(b.t, node, type, status, b.t.clock.now() - minutesAgo * MINUTE);
    expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([claim.name]);
    await b.t.settle(2 * MINUTE);
    expect(await stateOf(b, claim)).toBe('Terminated');
    expect((await b.t.cluster.listNodes()).map((n) => n.metadata.name)).not.toContain(node);
    const live = await b.t.store.list({ states: ['Initialized'] });
    expect(live.map((c) => c.name)).not.toContain(claim.name);
    expect(live).toHaveLength(1);
    expect(await b.t.cluster.listPendingPods()).toEqual([]);
  });

  it('leaves a node whose condition is one minute short of its toleration', async () => {
    const b = await repairBed(1);
    setNodeCondition(
      b.t,
      b.nodes[0]?.metadata.name ?? '',
      'AcceleratedHardwareReady',
      'False',
      b.t.clock.now() - 9 * MINUTE,
    );
    expect((await disruptionSweep(b.t.deps)).repair?.repaired).toEqual([]);
    expect(await stateOf(b, b.claims[0] as NodeClaim)).toBe('Initialized');
  });
});

describe('node repair in a scenario (karpless simulate --scenario)', () => {
  it('repairs the batch node 30 minutes after its kubelet stops reporting, and its pod runs again (the example)', async () => {
    const r = await run(await loadScenario('examples/scenarios/node-repair.yaml'));
    const repairs = disrupted(r, 'Unhealthy');
    expect(repairs).toHaveLength(1);
    expect(offset(repairs[0] as TimelineEntry)).toBeGreaterThanOrEqual(40 * MINUTE);
    expect(offset(repairs[0] as TimelineEntry)).toBeLessThanOrEqual(41 * MINUTE);
    expect(disrupted(r).filter((e) => e.reason !== 'Unhealthy')).toEqual([]);
    const batch = (await allClaims(r)).filter((c) => c.nodePool === 'batch');
    expect(batch.map((c) => c.state)).toEqual(['Terminated', 'Initialized']);
    expect(await r.world.cluster.listPendingPods()).toEqual([]);
  });

  it('repairs nothing while more than 20 % of the pool is unhealthy', async () => {
    const r = await run(
      scenario(
        60 * MINUTE,
        [
          step(0, apply(nodePool({ types: ['m5.xlarge'] }), nodeClass(), deployment('web', 4, { cpu: '3' }))),
          step(5 * MINUTE, {
            type: 'nodeCondition',
            target: { kind: 'Node', namespace: 'default', selector: { 'karpenter.sh/nodepool': 'general' } },
            condition: 'Ready',
            status: 'False',
          }),
        ],
        { settings: { ...DISRUPTION_SETTINGS_DEFAULTS, nodeRepair: true } },
      ),
    );
    expect(disrupted(r, 'Unhealthy')).toEqual([]);
    expect((await allClaims(r)).map((c) => c.state)).toEqual([
      'Initialized',
      'Initialized',
      'Initialized',
      'Initialized',
    ]);
    expect(r.world.cluster.events.filter((e) => e.reason === 'NodeRepairBlocked').length).toBeGreaterThanOrEqual(4);
  });
});
