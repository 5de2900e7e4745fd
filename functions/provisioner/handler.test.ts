import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import { provision, SENDER_CLOCK_SKEW_MS } from '../../shared/controllers';
import { LaunchError } from '../../shared/errors';
import { makePod, mirroredClaim } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { AFTER_SOLVE_RESERVE, createHandler } from './handler';

let lines: () => Record<string, unknown>[];
beforeEach(() => {
  lines = captureOutput();
});
afterEach(() => vi.restoreAllMocks());

/** A hint sent `minutes` after the fixtures' default SentTimestamp. A hint re-sent by a test at the default time would
 * look answered by the run before it (docs/architecture.md, "Coalescing"); a real one is sent after that run's change. */
const sentLater = (minutes: number) => ({ sentAt: Date.parse('2026-11-21T21:00:00Z') + minutes * 60_000 });

function bed() {
  const { t, observability } = functionBed('provisioner');
  let built = 0;
  const handler = createHandler(() => {
    built++;
    return portsOf(t);
  }, observability);
  return { t, handler, builds: () => built };
}

describe('provisioner handler', () => {
  it('launches for PodsPending, builds its ports once, and emits EMF metrics', async () => {
    const { t, handler, builds } = bed();
    for (let i = 0; i < 2; i++) t.cluster.addPod(makePod(`inflate-${i}`, { cpu: '1', memory: '1Gi' }));
    const event = sqsEvent([readFixture('pods-pending.json')]);
    expect(await handler(event, fakeContext())).toEqual({ batchItemFailures: [] });
    const launched = await t.store.list({ states: ['Launched'] });
    expect(launched.length).toBeGreaterThan(0);
    expect(await t.cloud.list()).toHaveLength(launched.length);

    // Redelivery (the same message, received again) launches nothing.
    const again = sqsEvent([readFixture('pods-pending.json')], { receiveCount: 2 });
    expect(await handler(again, fakeContext())).toEqual({ batchItemFailures: [] });
    expect(await t.cloud.list()).toHaveLength(launched.length);
    expect(builds()).toBe(1);

    const emf = lines().filter((l) => '_aws' in l);
    expect(emf.some((l) => 'Launches' in l)).toBe(true);
    expect(emf.some((l) => 'PendingPods' in l && l.cluster === 'demo')).toBe(true);
  });

  it('logs why a launch failed: the reason and its detail reach the Powertools record', async () => {
    const { t, handler } = bed();
    t.cluster.addPod(makePod('inflate-0', { cpu: '1', memory: '1Gi' }));
    t.cloud.failNextLaunch(new LaunchError('unauthorized', 'not authorized to perform ec2:CreateFleet'));
    await handler(sqsEvent([readFixture('pods-pending.json')]), fakeContext());
    const failed = lines().find((l) => l.message === 'launch failed');
    expect(failed).toMatchObject({
      level: 'ERROR',
      service: 'provisioner',
      reason: 'unauthorized',
      detail: 'not authorized to perform ec2:CreateFleet',
    });
    expect(lines().some((l) => String(l.message).includes('reserved key'))).toBe(false);
  });

  it('never launches twice or loses a pod when two invocations handle the same message at once', async () => {
    const { t, handler } = bed();
    for (let i = 0; i < 5; i++) t.cluster.addPod(makePod(`inflate-${i}`, { cpu: '1', memory: '2Gi' }));
    const event = sqsEvent([readFixture('pods-pending.json')]);
    const results = await Promise.all([handler(event, fakeContext()), handler(event, fakeContext())]);
    expect(results).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    // Whatever either withdrew comes back as a re-plan hint; deliver those too.
    for (const m of t.queue.take()) await handler(sqsEvent([m.body]), fakeContext());
    const live = await t.store.list({ states: ['Launched'] });
    const placed = live.flatMap((c) => c.nominatedPods.map((p) => p.name)).sort();
    expect(placed).toEqual(['inflate-0', 'inflate-1', 'inflate-2', 'inflate-3', 'inflate-4']);
    expect(await t.cloud.list()).toHaveLength(live.length);
  });

  it('launches part of a batch larger than its time budget, continues with the rest, and a second run finishes', async () => {
    const { t, handler } = bed();
    const names = Array.from({ length: 6 }, (_, i) => `batch-${i}`);
    for (const [i, name] of names.entries())
      t.cluster.addPod(makePod(name, { cpu: `${1000 + i * 100}m`, memory: '1Gi' }));
    // Only the reserve for launching is left: the solve gets no time, places its first pod and defers the rest.
    const short = fakeContext(() => AFTER_SOLVE_RESERVE.minMs);
    expect(await handler(sqsEvent([readFixture('pods-pending.json')]), short)).toEqual({ batchItemFailures: [] });
    const first = await t.store.list({ states: ['Launched'] });
    const placedFirst = first.flatMap((c) => c.nominatedPods.map((p) => p.name));
    expect(first.length).toBeGreaterThan(0);
    expect(placedFirst.length).toBeGreaterThan(0);
    expect(placedFirst.length).toBeLessThan(names.length);
    const continuation = t.queue.take();
    expect(continuation).toHaveLength(1);
    const refs = (JSON.parse(continuation[0]?.body ?? '{}') as { refs: { name: string }[] }).refs.map((r) => r.name);
    expect(refs.sort()).toEqual(names.filter((n) => !placedFirst.includes(n)).sort());
    const emf = lines().filter((l) => '_aws' in l);
    expect(emf.some((l) => l.PodsDeferred === names.length - placedFirst.length)).toBe(true);
    expect(emf.some((l) => l.SolveDeadlineReached === 1)).toBe(true);

    // The continuation, with time to spare, plans the rest; every pod ends on exactly one launched claim.
    const next = sqsEvent([continuation[0]?.body ?? ''], sentLater(1));
    expect(await handler(next, fakeContext())).toEqual({ batchItemFailures: [] });
    const live = await t.store.list({ states: ['Launched'] });
    expect(live.flatMap((c) => c.nominatedPods.map((p) => p.name)).sort()).toEqual([...names].sort());
    expect(t.queue.take()).toEqual([]);
    expect(await t.cloud.list()).toHaveLength(live.length);
  });

  it('reports a poison message as a batch item failure while the rest of the batch succeeds', async () => {
    const { t, handler } = bed();
    t.cluster.addPod(makePod('inflate-0'));
    const event = sqsEvent([readFixture('malformed-wrong-version.json'), readFixture('nodepool-changed.json')], {
      queueArn: 'arn:aws:sqs:us-west-2:111122223333:karpless-demo-events',
    });
    const out = await handler(event, fakeContext());
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: event.Records[0]?.messageId }]);
    expect(await t.cloud.list()).toHaveLength(1);
    expect(lines().some((l) => String(l.message).startsWith('poison message'))).toBe(true);
  });

  it('starts the termination of a deleted NodeClaim object on NodeClaimDeleted; bad ones go to the DLQ', async () => {
    const { t, observability } = functionBed('provisioner');
    const dead: string[] = [];
    const handler = createHandler(
      () => ({ ...portsOf(t), deadLetter: async (record) => void dead.push(record.body) }),
      observability,
    );
    const claim = await mirroredClaim(t);
    const deleted = (name: string) =>
      JSON.stringify({
        v: 1,
        cluster: 'demo',
        kind: 'NodeClaimDeleted',
        at: '2026-11-21T21:05:00Z',
        refs: [{ kind: 'NodeClaim', name }],
      });

    // A hint naming no object being deleted (stale, or forged) removes nothing, and is no poison either.
    // Two hints of one kind in one batch: the run for the first answers the second too.
    expect(await handler(sqsEvent([deleted('ghost'), deleted(claim.name)]), fakeContext())).toEqual({
      batchItemFailures: [],
    });
    expect((await t.store.get(claim.name))?.state).toBe('Initialized');

    // `kubectl delete nodeclaim`: the mark is set, and the forwarder's message arrives between two malformed ones.
    expect(t.cluster.requestNodeClaimObjectDeletion(claim.name)).toBe(true);
    const batch = [readFixture('malformed-nodeclaim-deleted-no-name.json'), deleted(claim.name)];
    batch.push(readFixture('malformed-unknown-kind.json'));
    expect(await handler(sqsEvent(batch, sentLater(1)), fakeContext())).toEqual({ batchItemFailures: [] });
    expect(dead).toEqual([batch[0], batch[2]]);
    expect(await t.store.get(claim.name)).toMatchObject({ state: 'Draining', disruption: { cause: 'Deleted' } });
    // The drain runs as ever: the node and its instance go, and the finalizer comes off, so the object goes too.
    await t.settle(2 * 60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect((await t.cloud.list()).map((i) => i.instanceId)).not.toContain(claim.instanceId);
    expect((await t.cluster.listNodeClaimObjects()).map((o) => o.metadata.name)).not.toContain(claim.name);
  });

  it('fails a message meant for another cluster rather than acting on it', async () => {
    const { t, handler } = bed();
    t.cluster.addPod(makePod('inflate-0'));
    const body = readFixture('pods-pending.json').replace('"demo"', '"other"');
    const out = await handler(sqsEvent([body]), fakeContext());
    expect(out.batchItemFailures).toHaveLength(1);
    expect(await t.cloud.list()).toEqual([]);
  });

  // NodeChanged reaches this function, the cluster queue's only consumer; lifecycle has no Lambda of its own.
  it('registers, initializes and binds on NodeChanged hints', async () => {
    const { t, observability } = functionBed('provisioner');
    const handler = createHandler(() => portsOf(t), observability);
    t.cluster.addPod(makePod('web-0'));
    await provision(t.deps);
    const event = sqsEvent([readFixture('node-changed.json')]);

    t.clock.advance(31_000);
    expect(await handler(event, fakeContext())).toEqual({ batchItemFailures: [] });
    expect((await t.store.list())[0]?.state).toBe('Registered');

    t.clock.advance(15_000);
    const again = sqsEvent([readFixture('node-changed.json')], sentLater(1));
    expect(await handler(again, fakeContext())).toEqual({ batchItemFailures: [] });
    const [claim] = await t.store.list();
    expect(claim?.state).toBe('Initialized');
    expect(t.cluster.getPod('default/web-0')?.spec.nodeName).toBe(claim?.nodeName);
  });

  it('runs the lifecycle, the injected disruption sweep and a provisioning pass on a Sweep tick', async () => {
    const { t, observability } = functionBed('provisioner');
    const swept: string[] = [];
    const handler = createHandler(() => portsOf(t), observability, {
      sweep: async (deps) => {
        swept.push(deps.cluster);
        return undefined;
      },
    });
    t.cluster.addPod(makePod('inflate-0'));
    const out = await handler(sqsEvent([readFixture('sweep.json')]), fakeContext());
    expect(out).toEqual({ batchItemFailures: [] });
    expect(swept).toEqual(['demo']);
    expect(await t.cloud.list()).toHaveLength(1);
  });

  it('returns the message for redelivery when a launch is throttled, and the redelivery finishes it', async () => {
    const { t, handler } = bed();
    t.cluster.addPod(makePod('inflate-0'));
    const { LaunchError } = await import('../../shared/errors');
    t.cloud.failNextLaunch(new LaunchError('throttled', 'Request limit exceeded'));
    const event = sqsEvent([readFixture('pods-pending.json')]);
    expect((await handler(event, fakeContext())).batchItemFailures).toHaveLength(1);
    const [pending] = await t.store.list();
    expect(pending?.state).toBe('Pending');
    t.clock.advance(t.deps.config.pendingRelaunchAfterMs);
    expect((await handler(event, fakeContext())).batchItemFailures).toEqual([]);
    expect(await t.store.get(pending?.name ?? '')).toMatchObject({ state: 'Launched', uid: pending?.uid });
    expect(await t.cloud.list()).toHaveLength(1);
  });

  it("measures LaunchLatency from the message's SentTimestamp when the sender's `at` is forged", async () => {
    // `at` is the sender's word; SQS's SentTimestamp is not. The time is held within SENDER_CLOCK_SKEW_MS before
    // SentTimestamp and never after it, so an honest `at` keeps its milliseconds and a forged one cannot go far.
    const sentAgo = 1_500;
    const cases: [at: (sentAt: number) => string, latency: number][] = [
      [() => '1970-01-01T00:00:00.000Z', sentAgo + SENDER_CLOCK_SKEW_MS],
      [() => '9999-12-31T23:59:59.999Z', sentAgo],
      [(sentAt) => new Date(sentAt - 200).toISOString(), sentAgo + 200],
    ];
    for (const [atOf, latency] of cases) {
      const { t, handler } = bed();
      t.cluster.addPod(makePod('inflate-0', { cpu: '1', memory: '1Gi' }));
      const sentAt = t.clock.now() - sentAgo;
      const at = atOf(sentAt);
      const body = { ...JSON.parse(readFixture('pods-pending.json')), at };
      expect(await handler(sqsEvent([JSON.stringify(body)], { sentAt }), fakeContext())).toEqual({
        batchItemFailures: [],
      });
      const latencies = lines().flatMap((l) => ('LaunchLatency' in l ? [l.LaunchLatency] : []));
      expect({ at, latencies }).toEqual({ at, latencies: [latency] });
      lines = captureOutput();
    }
  });
});
