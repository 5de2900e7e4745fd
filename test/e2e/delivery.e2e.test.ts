// At-least-once delivery, crashes and poison: whatever SQS does, nothing leaks (no orphan instance, no duplicate
// launch, no pod left behind) and a bad message goes to the DLQ at once without holding up its batch or its group.
import type { SQSBatchResponse } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { readFixture, sqsEvent } from '../../events';
import type { LocalPipeline } from '../../local';
import { allBound, CLUSTER, pipeline, spotWarning } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const pendingBody = (p: LocalPipeline, names: string[]) =>
  JSON.stringify({
    v: 1,
    cluster: CLUSTER,
    kind: 'PodsPending',
    at: p.clock.iso(),
    refs: names.map((name) => ({ namespace: 'default', name })),
  });

describe('local pipeline: delivery faults', () => {
  it('a message delivered twice launches nothing twice', async () => {
    p = await pipeline({ pods: 5 });
    expect(await p.runUntil(allBound(p), 5 * 60_000)).toBe(true);
    const before = await p.audit();
    const claims = (await p.store.list()).length;
    // The same hint again, under a new deduplication id (as after the 5-minute window, or a relist).
    const body = pendingBody(p, ['web-0', 'web-1', 'web-2']);
    expect(p.sendToEvents(body, 'again-1')).toBe(true);
    expect(p.sendToEvents(body, 'again-1')).toBe(false);
    expect(p.sendToEvents(body, 'again-2')).toBe(true);
    await p.runFor(60_000);
    expect((await p.store.list()).length).toBe(claims);
    const after = await p.audit();
    expect(after.instances).toBe(before.instances);
    expect(after).toMatchObject({ orphanInstances: [], duplicateLaunches: [], pendingPods: [] });
  });

  it('a handler crashing right after a launch, then redelivery and GC, leaks nothing', async () => {
    p = await pipeline({ pods: 4 });
    p.cloud.crashAfterNextLaunches(1);
    expect(await p.runUntil(allBound(p), 15 * 60_000)).toBe(true);
    // The crash was a failed invocation: the batch came back after its visibility timeout.
    const crashed = p.invocations.filter((i) => i.error?.includes('simulated crash'));
    expect(crashed).toHaveLength(1);
    // Let GC run a few times past its grace period.
    await p.runFor(3 * 60_000);
    const audit = await p.audit();
    expect(audit).toMatchObject({
      orphanInstances: [],
      duplicateLaunches: [],
      claimsWithoutInstance: [],
      pendingPods: [],
    });
    expect(audit.boundPods).toBe(4);
    // Every launched instance ended up recorded by exactly one claim.
    const launched = (await p.simCloud.list()).map((i) => i.instanceId).sort();
    const recorded = (await p.store.list())
      .filter((c) => c.state === 'Initialized')
      .map((c) => c.instanceId)
      .sort();
    expect(recorded).toEqual(launched);
    expect(p.queues.eventsDlq.size).toBe(0);
  });

  it('a poison message goes to the DLQ on its first receive while the rest of its batch succeeds', async () => {
    p = await pipeline({ pods: 2, sweepEveryMs: 300_000, gcEveryMs: 300_000 });
    expect(await p.runUntil(allBound(p), 5 * 60_000)).toBe(true);
    const [victim] = await p.simCloud.list();
    if (!victim) throw new Error('no instance launched');
    const poison = readFixture('malformed-spot-missing-instance-id.json');
    // One batch on the standard interruption queue: the poison first, then a valid spot warning.
    p.queues.interruption.send({ body: poison });
    p.sendInterruption(spotWarning(victim.instanceId, p.clock.iso()));
    const sentAt = p.clock.now();
    await p.settleNow();
    // Retrying cannot fix a message that fails validation: it is dead-lettered and acknowledged at once.
    const first = p.invocations.find((i) => i.fn === 'interruption');
    expect(first).toMatchObject({ received: 2, failed: 0 });
    expect((await p.store.getByInstanceId(victim.instanceId))?.state).toBe('Draining');
    expect(p.queues.interruption.size).toBe(0);
    const [dead] = p.queues.interruptionDlq.peek();
    expect(dead).toMatchObject({
      body: poison,
      attributes: { 'karpless-source-queue': 'karpless-interruption' },
    });
    expect(dead?.attributes?.['karpless-dead-letter-reason']).toMatch(/^SQS message .* \(karpless-interruption\)/);
    expect(p.timeline.find((e) => e.kind === 'dead-letter')?.at).toBe(sentAt);
    expect(p.logs.filter((l) => String(l.message).startsWith('poison message'))).toHaveLength(1);
    await p.runFor(4 * 270_000);
    expect(p.queues.interruptionDlq.size).toBe(1);
    const audit = await p.audit();
    expect(audit).toMatchObject({ pendingPods: [], orphanInstances: [], duplicateLaunches: [] });
  });

  it('a poison message on the cluster FIFO queue is dead-lettered at once and never holds its group', async () => {
    p = await pipeline({ pods: 3 });
    const start = p.clock.now();
    const poison = '{"v":1,"cluster":"demo","kind":"PodsPending","at":"not a time"';
    p.sendToEvents(poison, 'poison');
    // The next message of the same group, in the same batch as the poison.
    const sweep = JSON.stringify({ v: 1, cluster: CLUSTER, kind: 'Sweep', at: p.clock.iso() });
    p.sendToEvents(sweep, 'sweep-behind-poison');
    await p.settleNow();
    const first = p.invocations.find((i) => i.fn === 'provisioner');
    expect(first).toMatchObject({ received: 2, failed: 0 });
    expect(p.queues.eventsDlq.peek()).toMatchObject([
      { body: poison, groupId: CLUSTER, attributes: { 'karpless-source-queue': 'karpless-events.fifo' } },
    ]);
    expect(p.timeline.find((e) => e.kind === 'dead-letter')?.at).toBe(start);
    expect(p.queues.events.size).toBe(0);
    // The forwarder's batches that follow in the group go through without waiting out a visibility timeout (270 s);
    // before, the group was blocked until the poison was redriven after 5 × 270 s.
    expect(await p.runUntil(allBound(p), 3 * 60_000)).toBe(true);
    expect(p.clock.now() - start).toBeLessThan(270_000);
    expect(p.invocations.filter((i) => i.fn === 'provisioner').every((i) => i.failed === 0)).toBe(true);
    expect(p.queues.eventsDlq.size).toBe(1);
    expect(await p.audit()).toMatchObject({ orphanInstances: [], duplicateLaunches: [], pendingPods: [] });
  });

  it('two concurrent provisioner invocations for one cluster never launch twice', async () => {
    p = await pipeline({ pods: 8, sweepEveryMs: 3_600_000, gcEveryMs: 3_600_000 });
    const body = pendingBody(
      p,
      Array.from({ length: 8 }, (_, i) => `web-${i}`),
    );
    const a = p.newProvisionerHandler();
    const b = p.newProvisionerHandler();
    const event = (n: number) =>
      sqsEvent([body], { queueArn: p?.queues.events.arn ?? '', receiveCount: n, groupId: CLUSTER });
    const [ra, rb] = (await Promise.all([
      a(event(1), p.context('provisioner')),
      b(event(2), p.context('provisioner')),
    ])) as [SQSBatchResponse, SQSBatchResponse];
    const failures = [...ra.batchItemFailures, ...rb.batchItemFailures].length;
    // A pass that lost a race may ask for redelivery; it never launches a second time.
    expect(failures).toBeLessThanOrEqual(1);
    const launches = p.cloud.creates.map((c) => c.claim);
    const claims = await p.store.list({ states: ['Launched', 'Pending'] });
    const instances = await p.simCloud.list();
    expect(instances.length).toBe(claims.filter((c) => c.state === 'Launched').length);
    const nominated = claims.flatMap((c) => c.nominatedPods.map((r) => r.name));
    expect(new Set(nominated).size).toBe(nominated.length);
    expect(new Set(instances.map((i) => i.tags['karpenter.sh/nodeclaim'])).size).toBe(instances.length);
    expect(launches.length).toBeGreaterThan(0);
    // And the cluster converges from there with nothing leaked.
    expect(await p.runUntil(allBound(p), 5 * 60_000)).toBe(true);
    const audit = await p.audit();
    expect(audit).toMatchObject({ orphanInstances: [], duplicateLaunches: [], claimsWithoutInstance: [] });
  });
});
