import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqsEvent } from '../../events/sqs';
import type { PodDisruptionBudget } from '../../shared/api/kube';
import { startTermination } from '../../shared/controllers';
import { makePod, RecordingQueue } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

let output: () => Record<string, unknown>[] = () => [];
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => vi.restoreAllMocks());

const TERMINATION_QUEUE = 'arn:aws:sqs:us-west-2:111122223333:karpless-demo-termination';

describe('termination handler', () => {
  it('does one step per message and re-queues itself with a delay until the claim is terminated', async () => {
    const { t, observability } = functionBed('termination');
    const terminationQueue = new RecordingQueue(t.clock);
    t.deps.terminationQueue = terminationQueue;
    const handler = createHandler(() => portsOf(t), observability);
    t.cluster.addPod(makePod('web-0'));
    await t.settle(60_000);
    const pdb: PodDisruptionBudget = {
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    };
    t.cluster.load([pdb]);
    const [claim] = await t.store.list({ states: ['Initialized'] });
    if (!claim) throw new Error('no claim');
    await startTermination(t.deps, claim, { cause: 'Drifted' });
    expect(terminationQueue.sent).toHaveLength(1);

    // The PDB blocks: the step re-queues itself with the blocked delay.
    const first = terminationQueue.take();
    const out = await handler(
      sqsEvent(
        first.map((m) => m.body),
        { queueArn: TERMINATION_QUEUE },
      ),
      fakeContext(),
    );
    expect(out.batchItemFailures).toEqual([]);
    expect(terminationQueue.sent.at(-1)?.delaySeconds).toBe(t.deps.config.drainBlockedRequeueSeconds);
    expect((await t.store.get(claim.name))?.state).toBe('Draining');

    // The PDB is relaxed (the simulator holds this object): the next steps evict, terminate and finish, and no
    // further message is queued.
    pdb.spec = { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } };
    for (let i = 0; i < 5; i++) {
      t.clock.advance(60_000);
      const ready = terminationQueue.take();
      if (ready.length === 0) break;
      await handler(
        sqsEvent(
          ready.map((m) => m.body),
          { queueArn: TERMINATION_QUEUE },
        ),
        fakeContext(),
      );
    }
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(terminationQueue.pending()).toBe(0);
    expect(await t.cloud.list()).toEqual([]);
  });
  it('sends a malformed message to its DLQ port and acknowledges it, so the rest of the batch runs', async () => {
    const { t, observability } = functionBed('termination');
    const dead: { body: string; reason: string }[] = [];
    const handler = createHandler(
      () => ({
        ...portsOf(t),
        deadLetter: async (record, reason) => {
          dead.push({ body: record.body, reason });
        },
      }),
      observability,
    );
    const sweep = JSON.stringify({ v: 1, cluster: 'demo', kind: 'Sweep', at: '2026-11-21T21:00:00Z' });
    const out = await handler(
      sqsEvent(['{"v":1,"cluster":"demo","kind":"Terminate"', sweep], { queueArn: TERMINATION_QUEUE }),
      fakeContext(),
    );
    expect(out.batchItemFailures).toEqual([]);
    expect(dead).toHaveLength(1);
    expect(dead[0]?.body).toBe('{"v":1,"cluster":"demo","kind":"Terminate"');
    expect(dead[0]?.reason).toMatch(/karpless-demo-termination/);
    // The Sweep does not belong here: it is handed to the cluster queue, where the one planner runs it.
    expect(
      t.queue.sent.map((m) => [JSON.parse(m.body).kind, m.groupId, m.deduplicationId?.startsWith('relayed-')]),
    ).toEqual([['Sweep', 'demo', true]]);
  });

  it('refuses a bare Terminate for a healthy claim: no decision chose it, so its node keeps running', async () => {
    const { t, observability } = functionBed('termination');
    const terminationQueue = new RecordingQueue(t.clock);
    t.deps.terminationQueue = terminationQueue;
    const handler = createHandler(() => portsOf(t), observability);
    t.cluster.addPod(makePod('web-0'));
    await t.settle(60_000);
    const [claim] = await t.store.list({ states: ['Initialized'] });
    if (!claim?.nodeName || !claim.instanceId) throw new Error('no initialized claim');
    const bare = JSON.stringify({ v: 1, cluster: 'demo', kind: 'Terminate', nodeClaim: claim.name, at: t.clock.iso() });

    const out = await handler(sqsEvent([bare], { queueArn: TERMINATION_QUEUE }), fakeContext());
    // Acknowledged, not retried: a redelivery would be refused the same way.
    expect(out.batchItemFailures).toEqual([]);
    expect((await t.store.get(claim.name))?.state).toBe('Initialized');
    expect(t.cluster.getNode(claim.nodeName)?.spec.unschedulable).toBeFalsy();
    expect((await t.cloud.get(claim.instanceId))?.state).toBe('running');
    expect(terminationQueue.sent).toEqual([]);
    const lines = output();
    expect(lines.some((l) => String(l.message).startsWith('Terminate refused') && l.nodeClaim === claim.name)).toBe(
      true,
    );
    expect(lines.some((l) => l.TerminationsRefused !== undefined)).toBe(true);

    // Once a decision starts the claim's termination, the same message moves it on.
    await startTermination(t.deps, claim, { cause: 'Drifted' });
    terminationQueue.take();
    await handler(sqsEvent([bare], { queueArn: TERMINATION_QUEUE }), fakeContext());
    expect(t.cluster.getNode(claim.nodeName)?.spec.unschedulable).toBe(true);
  });
});
