import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, testNodePool } from '../../testkit/bed';
import type { PodDisruptionBudget } from '../api/kube';
import { TaintDisrupted } from '../api/labels';
import { groupForEviction, startTermination, terminateStep } from './termination';

/** A bed with one initialized node running `web` pods, plus the given extra pods bound to that node. */
async function nodeWith(extra: Parameters<typeof makePod>[] = [], terminationGracePeriod?: string) {
  const t = createTestbed({
    nodePool: testNodePool('default', undefined, terminationGracePeriod ? { terminationGracePeriod } : {}),
  });
  for (let i = 0; i < 2; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '250m', memory: '256Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName) throw new Error('no initialized node');
  for (const [name, o] of extra) t.cluster.addPod(makePod(name, { ...o, nodeName: claim.nodeName }));
  return { t, claim, nodeName: claim.nodeName };
}

const podNames = async (t: ReturnType<typeof createTestbed>, nodeName: string) =>
  (await t.cluster.listPods({ nodeName })).map((p) => p.metadata.name).sort();

describe('terminateStep', () => {
  it('cordons, taints and evicts in Karpenter order, never static pods, then terminates', async () => {
    const { t, claim, nodeName } = await nodeWith([
      ['ds-0', { owner: 'DaemonSet', cpu: '50m', memory: '64Mi' }],
      ['critical-0', { priorityClassName: 'system-cluster-critical', cpu: '50m', memory: '64Mi' }],
      ['critical-ds-0', { owner: 'DaemonSet', priorityClassName: 'system-node-critical', cpu: '50m', memory: '64Mi' }],
      ['static-0', { owner: 'Node', cpu: '50m', memory: '64Mi' }],
    ]);
    const started = await startTermination(t.deps, claim, { cause: 'Deleted' });
    expect(started?.state).toBe('Draining');
    expect(t.queue.kinds()).toContain('Terminate');

    const evictions: string[][] = [];
    t.cluster.onChange((c) => {
      if (c.type === 'pod-evicted') evictions[evictions.length - 1]?.push(c.pod.replace('default/', ''));
    });
    for (let i = 0; i < 10; i++) {
      evictions.push([]);
      const step = await terminateStep(t.deps, claim.name);
      if (i === 0) {
        const node = t.cluster.getNode(nodeName);
        expect(node?.spec.unschedulable).toBe(true);
        expect(node?.spec.taints).toContainEqual(TaintDisrupted);
      }
      if (step.done) break;
      expect(step.requeueAfterSeconds).toBeGreaterThan(0);
      t.clock.advance((step.requeueAfterSeconds ?? 1) * 1000);
    }
    // One group per step, each only once the earlier groups are gone; the static pod is never evicted.
    expect(evictions.filter((e) => e.length > 0).map((e) => e.sort())).toEqual([
      ['web-0', 'web-1'],
      ['ds-0'],
      ['critical-0'],
      ['critical-ds-0'],
    ]);
    // Karpenter's Evicted event on each evicted pod, with its reason: a delete is a forceful termination.
    const evicted = t.cluster.events.filter((e) => e.reason === 'Evicted');
    expect(evicted.map((e) => e.involved.name).sort()).toEqual([
      'critical-0',
      'critical-ds-0',
      'ds-0',
      'web-0',
      'web-1',
    ]);
    expect(new Set(evicted.map((e) => `${e.type} ${e.involved.kind} ${e.message}`))).toEqual(
      new Set(['Normal Pod Evicted pod: Forceful Termination']),
    );
    // No grace period and no deadline: no pod is ever deleted by force, so no TerminationGracePeriodExpiring.
    expect(t.cluster.events.filter((e) => e.reason === 'TerminationGracePeriodExpiring')).toEqual([]);
    const final = await t.store.get(claim.name);
    expect(final?.state).toBe('Terminated');
    expect(await t.cloud.list()).toEqual([]);
    expect(t.cluster.getNode(nodeName)).toBeUndefined();
    expect(await terminateStep(t.deps, claim.name)).toEqual({ done: true });
    const decisions = await t.store.listDecisions(claim.name);
    expect(decisions.at(-1)).toMatchObject({ kind: 'Terminate', detail: { cause: 'Deleted' } });
  });

  it('waits while a PDB blocks eviction and stops waiting at the terminationGracePeriod', async () => {
    const { t, claim, nodeName } = await nodeWith([], '5m');
    const pdb: PodDisruptionBudget = {
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'web' } } },
    };
    t.cluster.load([pdb]);
    await startTermination(t.deps, claim, { cause: 'Drifted' });
    const drainStart = (await t.store.get(claim.name))?.drain?.startedAt ?? '';
    let step = await terminateStep(t.deps, claim.name);
    expect(step.done).toBe(false);
    expect(step.requeueAfterSeconds).toBe(t.deps.config.drainBlockedRequeueSeconds);
    expect(await podNames(t, nodeName)).toEqual(['web-0', 'web-1']);
    // Karpenter's FailedDraining on the Node for each pod the budget holds, and no Evicted event.
    const failed = t.cluster.events.filter((e) => e.reason === 'FailedDraining');
    expect(failed.map((e) => [e.type, e.involved.kind, e.involved.name, e.message]).sort()).toEqual([
      ['Warning', 'Node', nodeName, 'Failed to drain node, evicting pod violates a PDB (Pod=default/web-0)'],
      ['Warning', 'Node', nodeName, 'Failed to drain node, evicting pod violates a PDB (Pod=default/web-1)'],
    ]);
    expect(t.cluster.events.filter((e) => e.reason === 'Evicted')).toEqual([]);
    // The time every pod left is deleted, on the Node and the NodeClaim, as the drain starts.
    const expiring = t.cluster.events.filter((e) => e.reason === 'TerminationGracePeriodExpiring');
    const at = new Date(Date.parse(drainStart) + 5 * 60_000).toISOString();
    expect(expiring.map((e) => [e.type, e.involved.kind, e.involved.name, e.message])).toEqual([
      ['Warning', 'Node', nodeName, `All pods will be deleted by ${at}`],
      ['Warning', 'NodeClaim', claim.name, `All pods will be deleted by ${at}`],
    ]);

    t.clock.advance(2 * 60_000);
    step = await terminateStep(t.deps, claim.name);
    expect(step.done).toBe(false);
    expect((await t.store.get(claim.name))?.state).toBe('Draining');

    t.clock.advance(3 * 60_000);
    step = await terminateStep(t.deps, claim.name);
    expect(step.done).toBe(true);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(await t.cloud.list()).toEqual([]);
  });

  it("names the disruption method that chose the node in each pod's Evicted event", async () => {
    const { t, claim, nodeName } = await nodeWith();
    await startTermination(t.deps, claim, { cause: 'Drifted' });
    await terminateStep(t.deps, claim.name);
    expect(await podNames(t, nodeName)).toEqual([]);
    const evicted = t.cluster.events.filter((e) => e.reason === 'Evicted');
    expect(evicted.map((e) => [e.involved.namespace, e.involved.name, e.message]).sort()).toEqual([
      ['default', 'web-0', 'Evicted pod: Drifted'],
      ['default', 'web-1', 'Evicted pod: Drifted'],
    ]);
  });

  it('does not evict do-not-disrupt pods or pods that tolerate the disrupted taint, but waits for the former', async () => {
    const { t, claim, nodeName } = await nodeWith(
      [
        ['keep-0', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' }, cpu: '50m', memory: '64Mi' }],
        [
          'tolerant-0',
          { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }], cpu: '50m', memory: '64Mi' },
        ],
      ],
      '10m',
    );
    await startTermination(t.deps, claim, { cause: 'Expired' });
    for (let i = 0; i < 5; i++) {
      await terminateStep(t.deps, claim.name);
      t.clock.advance(15_000);
    }
    expect(await podNames(t, nodeName)).toEqual(['keep-0', 'tolerant-0']);
    expect((await t.store.get(claim.name))?.state).toBe('Draining');
    t.clock.advance(10 * 60_000);
    expect((await terminateStep(t.deps, claim.name)).done).toBe(true);
  });

  it('stops waiting at an interruption deadline earlier than the grace period', async () => {
    const { t, claim } = await nodeWith([], '1h');
    const pdb: PodDisruptionBudget = {
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: '100%', selector: { matchLabels: { app: 'web' } } },
    };
    t.cluster.load([pdb]);
    const deadline = new Date(t.clock.now() + 2 * 60_000).toISOString();
    await startTermination(t.deps, claim, { cause: 'Interrupted', deadline });
    const first = await terminateStep(t.deps, claim.name);
    expect(first.done).toBe(false);
    t.clock.advance(2 * 60_000);
    expect((await terminateStep(t.deps, claim.name)).done).toBe(true);
  });

  it('cleans up a failed claim that still owns an instance', async () => {
    const { t, claim } = await nodeWith();
    const failedClaim = await t.store.get(claim.name);
    if (!failedClaim) throw new Error('missing');
    // An initialized claim cannot fail; force the path through a fresh claim that failed after launch.
    const other = await t.store.create({
      ...failedClaim,
      name: 'default-fail1',
      uid: 'u-f',
      state: 'Failed',
      version: 1,
    });
    expect((await terminateStep(t.deps, other.name)).done).toBe(true);
    expect((await t.store.get(other.name))?.state).toBe('Terminated');
  });

  it('starting termination twice queues steps but transitions once', async () => {
    const { t, claim } = await nodeWith();
    const first = await startTermination(t.deps, claim, { cause: 'Drifted' });
    const second = await startTermination(t.deps, claim, { cause: 'Drifted' });
    expect(first?.state).toBe('Draining');
    expect(second?.version).toBe(first?.version);
  });

  it('bounds the evictions of one step', async () => {
    const { t, claim, nodeName } = await nodeWith([
      ['batch-0', { cpu: '10m', memory: '16Mi' }],
      ['batch-1', { cpu: '10m', memory: '16Mi' }],
      ['batch-2', { cpu: '10m', memory: '16Mi' }],
    ]);
    t.deps.config = { ...t.deps.config, maxEvictionsPerStep: 2 };
    let evicted = 0;
    t.cluster.onChange((c) => {
      if (c.type === 'pod-evicted') evicted++;
    });
    await startTermination(t.deps, claim, { cause: 'Deleted' });
    expect((await terminateStep(t.deps, claim.name)).done).toBe(false);
    expect(evicted).toBe(2);
    expect(await podNames(t, nodeName)).toHaveLength(3);
    expect((await terminateStep(t.deps, claim.name)).done).toBe(false);
    expect(evicted).toBe(4);
  });

  it('groups pods in eviction order', () => {
    const groups = groupForEviction([
      makePod('c', { priorityClassName: 'system-node-critical' }),
      makePod('d', { owner: 'DaemonSet' }),
      makePod('n'),
      makePod('cd', { owner: 'DaemonSet', priorityClassName: 'system-cluster-critical' }),
    ]);
    expect(groups.map((g) => g.map((p) => p.metadata.name))).toEqual([['n'], ['d'], ['c'], ['cd']]);
  });
});
