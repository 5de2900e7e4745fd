import { describe, expect, it } from 'vitest';
import { crashAfterLaunch, createTestbed, makePod, testNodePool } from '../../testkit/bed';
import { reconcileNodes } from './lifecycle';
import { provision } from './provision';

describe('provision → lifecycle on the simulator', () => {
  it('turns pending pods into claims, instances, registered and initialized nodes, and bound pods', async () => {
    const t = createTestbed();
    for (let i = 0; i < 3; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '500m', memory: '512Mi' }));

    const result = await provision(t.deps);
    expect(result.created.length).toBeGreaterThan(0);
    expect(result.launched).toEqual(result.created);
    expect(result.unschedulable).toEqual([]);
    const instances = await t.cloud.list();
    expect(instances).toHaveLength(result.created.length);

    const claims = await t.store.list();
    expect(claims.every((c) => c.state === 'Launched' && c.instanceId && c.providerID)).toBe(true);
    expect(claims.flatMap((c) => c.nominatedPods.map((p) => p.name)).sort()).toEqual(['web-0', 'web-1', 'web-2']);
    // The decision record explains the launch.
    const [claim] = claims;
    const decisions = await t.store.listDecisions(claim?.name ?? '');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.kind).toBe('Provision');
    expect(JSON.stringify(decisions[0]?.detail)).toContain('cheapest');
    // Nominated events name the claim.
    const nominated = t.cluster.events.filter((e) => e.reason === 'Nominated');
    expect(nominated).toHaveLength(3);
    expect(nominated[0]?.message).toMatch(/^Pod should schedule on: nodeclaim\//);

    // Registration: the node appears after 30 s but is not Ready yet.
    t.clock.advance(31_000);
    const registered = await reconcileNodes(t.deps);
    expect(registered.registered).toHaveLength(claims.length);
    expect(registered.initialized).toEqual([]);
    expect((await t.store.list()).every((c) => c.state === 'Registered' && c.nodeName)).toBe(true);

    // Ready 15 s later: kube-scheduler (the simulated cluster's) binds the nominated pods to the registered node,
    // and the lifecycle initializes the claim without binding anything itself (bindPods is opt-in).
    t.clock.advance(15_000);
    expect(await t.cluster.listPendingPods()).toEqual([]);
    const ready = await reconcileNodes(t.deps);
    expect(ready.initialized).toHaveLength(claims.length);
    expect(ready.bound).toBe(0);
    const nodeNames = new Set((await t.store.list()).map((c) => c.nodeName));
    expect((await t.cluster.listPods()).every((p) => nodeNames.has(p.spec.nodeName))).toBe(true);
    const node = t.cluster.getNode((await t.store.list())[0]?.nodeName ?? '');
    expect(node?.metadata.labels?.['karpenter.sh/initialized']).toBe('true');
    expect(node?.metadata.labels?.['karpenter.sh/nodepool']).toBe('default');
  });

  it('launches nothing more when the same message is delivered again', async () => {
    const t = createTestbed();
    for (let i = 0; i < 4; i++) t.cluster.addPod(makePod(`api-${i}`, { cpu: '1', memory: '1Gi' }));
    const first = await provision(t.deps);
    expect(first.launched.length).toBeGreaterThan(0);
    const second = await provision(t.deps);
    expect(second.created).toEqual([]);
    expect(second.launched).toEqual([]);
    // Still nothing after the node registered but before it is ready.
    t.clock.advance(31_000);
    await reconcileNodes(t.deps);
    expect((await provision(t.deps)).created).toEqual([]);
    expect(await t.cloud.list()).toHaveLength(first.launched.length);
  });

  it('never launches twice when two passes for the same cluster run at once', async () => {
    const t = createTestbed();
    for (let i = 0; i < 6; i++) t.cluster.addPod(makePod(`job-${i}`, { cpu: '1', memory: '2Gi' }));
    const [a, b] = await Promise.all([provision(t.deps), provision(t.deps)]);
    // Same state, same plan, same claim names: the store's conditional create lets one pass write each claim.
    expect(a.created.length + b.created.length).toBe(Math.max(a.created.length, b.created.length));
    const instances = await t.cloud.list();
    const live = await t.store.list({ states: ['Launched'] });
    // Every instance belongs to exactly one live claim, and no pod is nominated twice.
    expect(instances.length).toBe(live.length);
    const pods = live.flatMap((c) => c.nominatedPods.map((p) => p.name));
    expect(new Set(pods).size).toBe(pods.length);
    expect(a.launched.length + b.launched.length).toBeGreaterThanOrEqual(live.length);
    // Whatever was withdrawn is re-planned by the follow-up pass, and all pods end up placed exactly once.
    await t.pump();
    const after = await t.store.list({ states: ['Launched'] });
    const placed = after.flatMap((c) => c.nominatedPods.map((p) => p.name)).sort();
    expect(placed).toEqual(['job-0', 'job-1', 'job-2', 'job-3', 'job-4', 'job-5']);
    expect(await t.cloud.list()).toHaveLength(after.length);
  });

  it('withdraws contested claims when two concurrent passes planned the same pods differently', async () => {
    const t = createTestbed();
    for (let i = 0; i < 6; i++) t.cluster.addPod(makePod(`job-${i}`, { cpu: '1', memory: '2Gi' }));
    // The second pass saw one pod fewer (it arrived in between), so it packed differently: its claim names differ
    // and only the write-then-read check stands between the two passes and a double launch.
    const { solve } = await import('../scheduling');
    const partial = {
      ...t.deps,
      solve: (input: Parameters<typeof solve>[0]) => solve({ ...input, pods: input.pods.slice(1) }),
    };
    const [a, b] = await Promise.all([provision(t.deps), provision(partial)]);
    expect(a.withdrawn.length + b.withdrawn.length).toBeGreaterThan(0);
    const live = await t.store.list({ states: ['Launched'] });
    const pods = live.flatMap((c) => c.nominatedPods.map((p) => p.name));
    expect(new Set(pods).size).toBe(pods.length);
    expect(await t.cloud.list()).toHaveLength(live.length);
    // The withdrawn pods were handed back for a re-plan, which places each exactly once.
    expect(t.queue.kinds()).toContain('PodsPending');
    await t.pump();
    const after = await t.store.list({ states: ['Launched'] });
    const placed = after.flatMap((c) => c.nominatedPods.map((p) => p.name)).sort();
    expect(placed).toEqual(['job-0', 'job-1', 'job-2', 'job-3', 'job-4', 'job-5']);
    expect(await t.cloud.list()).toHaveLength(after.length);
  });

  it('finishes a claim left Pending by a crash with the same uid, making no second instance', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('db-0', { cpu: '1', memory: '1Gi' }));
    // The invocation dies right after CreateFleet answered, before it recorded the instance.
    crashAfterLaunch(t);
    const crashed = await provision(t.deps);
    expect(crashed.retry).toBe(true);
    const [pending] = await t.store.list();
    expect(pending?.state).toBe('Pending');
    expect(await t.cloud.list()).toHaveLength(1);

    t.deps.cloud = t.cloud;
    // Too young to be someone else's leftover: a pass right away leaves it alone and plans nothing new.
    const early = await provision(t.deps);
    expect(early.created).toEqual([]);
    expect(early.launched).toEqual([]);

    t.clock.advance(t.deps.config.pendingRelaunchAfterMs);
    const next = await provision(t.deps);
    expect(next.relaunched).toEqual([pending?.name]);
    const [launched] = await t.store.list();
    expect(launched).toMatchObject({ state: 'Launched', uid: pending?.uid });
    const instances = await t.cloud.list();
    expect(instances).toHaveLength(1);
    expect(launched?.instanceId).toBe(instances[0]?.instanceId);
  });

  it('caches refused offerings and re-plans onto another one after insufficient capacity', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('big-0', { cpu: '3', memory: '4Gi' }));
    // Every 4-vCPU option in both zones is out of capacity.
    for (const type of ['m5.xlarge', 'c5.xlarge']) {
      for (const zone of ['us-east-1a', 'us-east-1b']) {
        t.cloud.injectInsufficientCapacity({ instanceType: type, zone, capacityType: 'on-demand' });
      }
    }
    const first = await provision(t.deps);
    expect(first.dropped).toHaveLength(1);
    expect(await t.store.list()).toEqual([]);
    // Karpenter's InsufficientCapacityError event, a Warning on the dropped claim, naming it and the refusal.
    const ice = t.cluster.events.filter((e) => e.reason === 'InsufficientCapacityError');
    expect(ice).toHaveLength(1);
    expect(ice[0]).toMatchObject({ type: 'Warning', involved: { kind: 'NodeClaim', name: first.dropped[0] } });
    expect(ice[0]?.message).toMatch(new RegExp(`^NodeClaim ${first.dropped[0]} event: .*\\S`));
    const cached = await t.store.listUnavailable(t.clock.now());
    expect(cached.map((o) => `${o.instanceType}/${o.zone}`).sort()).toEqual(
      expect.arrayContaining(['c5.xlarge/us-east-1a', 'm5.xlarge/us-east-1b']),
    );
    expect(t.queue.kinds()).toEqual(['PodsPending']);

    // The NodePool's only other types are too small: the pod stays unschedulable while the cache holds.
    const results = await t.pump();
    expect(results).toHaveLength(1);
    expect(await t.cloud.list()).toEqual([]);
    const failed = t.cluster.events.filter((e) => e.reason === 'FailedScheduling');
    expect(failed.length).toBeGreaterThan(0);

    // Capacity comes back and the cache expires: the next pass launches.
    t.cloud.restoreCapacity();
    t.clock.advance(t.deps.config.iceTtlMs + 1);
    const later = await provision(t.deps);
    expect(later.launched).toHaveLength(1);
  });

  it('re-plans onto a different offering when only some are refused', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0', { cpu: '500m', memory: '512Mi' }));
    // The cheapest fit is refused everywhere; the fleet skips it and launches the next option.
    const first = await provision(t.deps);
    const launchedType = (await t.store.list())[0]?.instanceType;
    expect(first.launched).toHaveLength(1);
    expect(launchedType).toBeDefined();

    const t2 = createTestbed();
    t2.cluster.addPod(makePod('web-0', { cpu: '500m', memory: '512Mi' }));
    for (const zone of ['us-east-1a', 'us-east-1b']) {
      t2.cloud.injectInsufficientCapacity({ instanceType: launchedType ?? '', zone, capacityType: 'on-demand' });
    }
    const second = await provision(t2.deps);
    expect(second.launched).toHaveLength(1);
    expect((await t2.store.list())[0]?.instanceType).not.toBe(launchedType);
    // The launch succeeded on another offering: no InsufficientCapacityError event.
    expect(t2.cluster.events.filter((e) => e.reason === 'InsufficientCapacityError')).toEqual([]);
  });

  it('reports pods no NodePool can take with FailedScheduling and the solver reason', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('huge-0', { cpu: '64', memory: '512Gi' }));
    const result = await provision(t.deps);
    expect(result.created).toEqual([]);
    expect(result.unschedulable).toHaveLength(1);
    const event = t.cluster.events.find((e) => e.reason === 'FailedScheduling');
    expect(event?.involved.name).toBe('huge-0');
    expect(event?.message).toContain(result.unschedulable[0]?.reason ?? 'missing');
  });

  it('nominates new pods onto spare room of an in-flight claim and records them on it', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0', { cpu: '500m', memory: '512Mi' }));
    const first = await provision(t.deps);
    expect(first.launched).toHaveLength(1);
    // A second small pod fits the claim that is still booting: no new claim, a nomination instead.
    t.cluster.addPod(makePod('web-1', { cpu: '100m', memory: '128Mi' }));
    const second = await provision(t.deps);
    expect(second.created).toEqual([]);
    expect(second.nominated).toBe(1);
    const [claim] = await t.store.list();
    expect(claim?.nominatedPods.map((p) => p.name).sort()).toEqual(['web-0', 'web-1']);
    // Both are bound once the node initializes.
    t.clock.advance(46_000);
    await reconcileNodes(t.deps);
    await reconcileNodes(t.deps);
    expect(await t.cluster.listPendingPods()).toEqual([]);
    expect(await t.cloud.list()).toHaveLength(1);
  });

  it('launches replacements before a disruption drains, and plans nothing twice once it drains', async () => {
    const t = createTestbed();
    for (let i = 0; i < 3; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '300m', memory: '256Mi' }));
    await t.settle(60_000);
    const [old] = await t.store.list({ states: ['Initialized'] });
    if (!old) throw new Error('no node');
    const replaced = await provision(t.deps, { replacing: [old.name], trigger: 'Underutilized' });
    expect(replaced.created).toHaveLength(1);
    const replacement = await t.store.get(replaced.created[0] ?? '');
    expect(replacement?.nominatedPods.map((p) => p.name).sort()).toEqual(['web-0', 'web-1', 'web-2']);
    expect((await t.store.get(old.name))?.state).toBe('Initialized');
    // An ordinary pass does not touch the running pods, and once the old node drains its pods are already held.
    expect((await provision(t.deps)).created).toEqual([]);
    await t.settle(60_000);
    const { startTermination } = await import('./termination');
    await startTermination(t.deps, (await t.store.get(old.name)) as typeof old, { cause: 'Underutilized' });
    expect((await provision(t.deps)).created).toEqual([]);
    await t.settle(2 * 60_000);
    expect(await t.cluster.listPendingPods()).toEqual([]);
    const instances = await t.cloud.list();
    expect(instances.map((i) => i.instanceId)).toEqual([replacement?.instanceId]);
  });

  it('names a NodePool whose EC2NodeClass is missing in the FailedScheduling message', async () => {
    const pool = testNodePool('orphan');
    pool.spec.template.spec.nodeClassRef.name = 'missing';
    const t = createTestbed({ nodePool: pool });
    t.cluster.addPod(makePod('web-0'));
    const result = await provision(t.deps);
    expect(result.created).toEqual([]);
    const event = t.cluster.events.find((e) => e.reason === 'FailedScheduling');
    expect(event?.message).toContain('NodePool orphan skipped: EC2NodeClass missing not found');
  });

  it('fails the claim on a non-retryable launch error', async () => {
    const t = createTestbed();
    t.cluster.addPod(makePod('web-0'));
    const { LaunchError } = await import('../errors');
    t.cloud.failNextLaunch(new LaunchError('unauthorized', 'not authorized to perform ec2:CreateFleet'));
    const result = await provision(t.deps);
    expect(result.failed).toHaveLength(1);
    const [claim] = await t.store.list();
    expect(claim).toMatchObject({ state: 'Failed', failure: { reason: 'unauthorized' } });
    expect(t.cluster.events.some((e) => e.reason === 'LaunchFailed')).toBe(true);
  });
});
