import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import type { SimLaunch } from '../../shared/sim/sim-cloud';
import { makePod, testNodePool } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

/** What one tick saw of the old claim and its replacement. */
interface Seen {
  at: number;
  old: string;
  /** The old node carries the karpenter.sh/disrupted taint (no new pods land on it). */
  tainted: boolean;
  replacement?: string;
}

const stateOf = (c: NodeClaim | undefined): string =>
  c ? [c.state, c.disruption?.phase].filter(Boolean).join('/') : 'gone';

/** The production handler over one initialized node whose big pod then leaves: the small pod left on it fits a
 * strictly cheaper type, and there is no other node to move it to, so consolidation must replace the node. */
async function underutilizedNode() {
  const nodePool = testNodePool();
  nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidateAfter: '1m' };
  // Ready 60 s after registering (90 s after launch, 105 s after the decision): a replacement is still booting at
  // the next Sweep tick after its launch, so that tick must wait for it rather than drain the old node; and it
  // initializes between ticks, so what moves the command on is the NodeChanged of its initialization.
  const { t, observability } = functionBed('provisioner', { nodePool, readyDelayMs: 60_000 });
  const launches: SimLaunch[] = [];
  t.cloud.onLaunch((launch) => launches.push(launch));
  t.cluster.addPod(makePod('big-0', { cpu: '2500m', memory: '2Gi' }));
  t.cluster.addPod(makePod('small-0', { cpu: '250m', memory: '256Mi' }));
  await t.settle(120_000);
  const [old] = await t.store.list({ states: ['Initialized'] });
  if (!old?.nodeName || !old.pricePerHour) throw new Error('no initialized node');
  expect((await t.cluster.listPods()).filter((p) => p.spec.nodeName === old.nodeName)).toHaveLength(2);
  t.cluster.deletePod('default/big-0');
  t.queue.take();
  launches.length = 0;
  // Each delivery a fresh container (a new handler, nothing kept in memory): the command must resume from the claims.
  const deliver = async (body: string) =>
    expect(await createHandler(() => portsOf(t), observability)(sqsEvent([body]), fakeContext())).toEqual({
      batchItemFailures: [],
    });
  return { t, old, launches, deliver };
}

describe('provisioner handler: a consolidation replace across Sweep ticks', () => {
  it('launches a cheaper replacement, waits for it to initialize, and only then drains and terminates the old node', async () => {
    const { t, old, launches, deliver } = await underutilizedNode();
    const seen: Seen[] = [];
    let replacementName: string | undefined;
    const look = async () => {
      const current = await t.store.get(old.name);
      replacementName ??= current?.disruption?.replacements?.[0];
      const replacement = replacementName ? await t.store.get(replacementName) : undefined;
      const taints = t.cluster.getNode(old.nodeName ?? '')?.spec.taints ?? [];
      seen.push({
        at: t.clock.now(),
        old: stateOf(current),
        tainted: taints.some((x) => x.key === 'karpenter.sh/disrupted'),
        ...(replacementName ? { replacement: stateOf(replacement) } : {}),
      });
    };

    // A Sweep tick every minute; in between, every 5 s, the forwarder's hints (NodeChanged for the lifecycle,
    // PodsPending while a pod waits) and whatever the control plane queued for itself (the DisruptionDue re-check,
    // termination steps).
    const start = t.clock.now();
    const done = async () =>
      (await t.store.get(old.name))?.state === 'Terminated' && (await t.cluster.listPendingPods()).length === 0;
    for (let second = 0; second < 15 * 60 && !(await done()); second += 5) {
      if (second % 60 === 0) await deliver(readFixture('sweep.json'));
      await deliver(readFixture('node-changed.json'));
      if ((await t.cluster.listPendingPods()).length) await deliver(readFixture('pods-pending.json'));
      for (const m of t.queue.take()) await deliver(m.body);
      await look();
      t.clock.advance(5_000);
    }

    // The old claim went through every phase, in order, and ended terminated.
    const phases = seen.map((s) => s.old).filter((s, i, all) => s !== all[i - 1]);
    expect(phases).toEqual([
      'Initialized',
      'Initialized/Validating',
      'Initialized/Launching',
      'Draining',
      'Terminated',
    ]);
    // Replace-first: no tick saw the old node draining (or gone) before its replacement was initialized, and the
    // replacement went through launch, registration and initialization while the old node waited.
    for (const s of seen) {
      if (s.old === 'Draining' || s.old === 'Terminated') expect(s).toMatchObject({ replacement: 'Initialized' });
    }
    const launching = seen.filter((s) => s.old === 'Initialized/Launching');
    const waiting = launching.map((s) => s.replacement).filter((s, i, all) => s !== all[i - 1]);
    expect(waiting).toEqual(['Launched', 'Registered']);
    // The delivery that initialized the replacement (a NodeChanged between Sweep ticks) also started the drain.
    const initialized = seen.find((s) => s.replacement === 'Initialized');
    expect(initialized?.old).toBe('Draining');
    expect(((initialized?.at ?? 0) - start) % 60_000).not.toBe(0);
    // At least one Sweep tick came while the replacement was booting, and it waited.
    expect((launching.at(-1)?.at ?? 0) - (launching[0]?.at ?? 0)).toBeGreaterThanOrEqual(60_000);
    expect(launching.every((s) => s.tainted)).toBe(true);
    expect(
      seen.filter((s) => s.old === 'Initialized' || s.old === 'Initialized/Validating').some((s) => s.tainted),
    ).toBe(false);
    // Decided after consolidateAfter (1m) on an unchanged node; re-checked and launched 15 s later, by the
    // DisruptionDue message the deciding tick scheduled, not by the next tick.
    const decidedAt = seen.find((s) => s.old === 'Initialized/Validating')?.at ?? 0;
    expect(decidedAt - start).toBeGreaterThanOrEqual(60_000);
    expect((launching[0]?.at ?? 0) - decidedAt).toBe(15_000);

    // One CreateFleet-equivalent launch in the simulated cloud: the replacement, on a strictly cheaper type.
    expect(launches.map((l) => l.claim.name)).toEqual([replacementName]);
    const [launch] = launches;
    expect(launch?.instance.pricePerHour).toBeLessThan(old.pricePerHour ?? 0);
    const decided = await t.store.get(old.name);
    expect(decided?.disruption).toMatchObject({ cause: 'Underutilized', replacements: [replacementName] });

    // Final state: only the replacement runs, the pod is bound to it, nothing is pending.
    const replacement = await t.store.get(replacementName ?? '');
    expect(replacement).toMatchObject({ state: 'Initialized', instanceId: launch?.instance.instanceId });
    expect((await t.cloud.list()).map((i) => i.instanceId)).toEqual([launch?.instance.instanceId]);
    expect(t.cluster.getNode(old.nodeName ?? '')).toBeUndefined();
    const pods = await t.cluster.listPods();
    expect(pods.map((p) => [p.metadata.name, p.spec.nodeName])).toEqual([['small-0', replacement?.nodeName]]);
    expect(await t.cluster.listPendingPods()).toEqual([]);
    const records = await t.store.listDecisions(old.name);
    expect(records.some((r) => r.kind === 'Disrupt' && r.summary.includes('Underutilized'))).toBe(true);
  });
});
