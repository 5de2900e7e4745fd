// The forwarder's identity may send anything to the cluster queue (its IAM allows SendMessage there), so the consumer
// checks every message against its sender: nothing the forwarder can send removes capacity, and whatever it may not
// send goes to the DLQ on first receive (docs/architecture.md, "Trust boundaries").
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent, sqsRecord } from '../../events/sqs';
import { mirrorNodeClaims } from '../../shared/controllers/nodeclaim-mirror';
import { memoryDeadLetter } from '../../shared/sim/sqs/dead-letter';
import { MemoryQueue } from '../../shared/sim/sqs/memory-queue';
import { makePod } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

const FORWARDER = 'AROAFORWARDER000:forwarder-pod';
const SCHEDULER = 'AROASCHEDULER000:sweep';
const RELAY = 'AROATERMINATION0:termination';
const QUEUE = 'arn:aws:sqs:us-west-2:111122223333:karpless-demo-events.fifo';

beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

async function bedWithNodes() {
  const { t, observability } = functionBed('provisioner');
  const dlq = new MemoryQueue({ name: 'karpless-demo-events-dlq.fifo', clock: t.clock });
  const handler = createHandler(
    () => ({
      ...portsOf(t),
      deadLetter: memoryDeadLetter(dlq),
      // Deployed functions always have their own termination queue, so no Terminate belongs on the cluster queue.
      terminationQueue: portsOf(t).terminationQueue ?? portsOf(t).queue,
      trustedSenders: { Sweep: ['AROASCHEDULER000'], DisruptionDue: ['AROATERMINATION0'] },
    }),
    observability,
  );
  for (let i = 0; i < 2; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '3', memory: '6Gi' }));
  const launched = await handler(
    sqsEvent([readFixture('pods-pending.json')], { queueArn: QUEUE, senderId: FORWARDER }),
    fakeContext(),
  );
  expect(launched).toEqual({ batchItemFailures: [] });
  const claims = await t.store.list({ states: ['Launched'] });
  expect(claims.length).toBeGreaterThanOrEqual(2);
  return { t, dlq, handler, claims };
}

const message = (kind: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ v: 1, cluster: 'demo', kind, at: '2026-11-21T21:05:00.000Z', ...extra });

describe('the cluster queue trusts the forwarder with observations only', () => {
  it('dead-letters every command the forwarder sends, at once, and removes no capacity', async () => {
    const { t, dlq, handler, claims } = await bedWithNodes();
    const instances = (await t.cloud.list()).map((i) => i.instanceId).sort();
    const forged = [
      ...claims.map((c) => message('Terminate', { nodeClaim: c.name })),
      message('Sweep'),
      message('DisruptionDue'),
      readFixture('pods-pending.json').replace('"demo"', '"other"'),
    ];
    // A NodeClaimDeleted for every claim, whose objects exist but carry no deletion mark: the forwarder cannot set
    // one (its role only lists and watches), and the consumer acts on the marks it reads, not on the message.
    await mirrorNodeClaims(t.deps);
    expect((await t.cluster.listNodeClaimObjects()).length).toBe(claims.length);
    const observations = [
      readFixture('node-changed.json'),
      readFixture('nodepool-changed.json'),
      message('NodeClaimDeleted', { refs: claims.map((c) => ({ kind: 'NodeClaim', name: c.name })) }),
    ];
    const out = await handler(
      sqsEvent([...forged, ...observations], { queueArn: QUEUE, senderId: FORWARDER }),
      fakeContext(),
    );
    // Nothing is reported for redelivery: each forged message is in the DLQ, each observation was handled.
    expect(out).toEqual({ batchItemFailures: [] });
    const held = dlq.peek();
    expect(held.map((m) => m.body)).toEqual(forged);
    expect(held.map((m) => m.attributes?.['karpless-dead-letter-reason'])).toEqual([
      ...claims.map(
        () =>
          expect.stringMatching(
            /kind: Terminate is not accepted on the cluster queue; termination steps travel on the termination queue$/,
          ) as unknown as string,
      ),
      expect.stringMatching(/kind: Sweep from sender AROAFORWARDER000:forwarder-pod is refused/) as unknown as string,
      expect.stringMatching(
        /kind: DisruptionDue from sender AROAFORWARDER000:forwarder-pod is refused/,
      ) as unknown as string,
      expect.stringMatching(/cluster: "other" is not this function's cluster "demo"/) as unknown as string,
    ]);
    expect((await t.cloud.list()).map((i) => i.instanceId).sort()).toEqual(instances);
    expect(await t.store.list({ states: ['Draining', 'Terminated'] })).toEqual([]);
  });

  it('accepts the sweep from the schedule role and a re-check from the termination role', async () => {
    const { dlq, handler } = await bedWithNodes();
    const sweep = await handler(sqsEvent([message('Sweep')], { queueArn: QUEUE, senderId: SCHEDULER }), fakeContext());
    const due = await handler(
      sqsEvent([message('DisruptionDue')], { queueArn: QUEUE, senderId: RELAY }),
      fakeContext(),
    );
    expect([sweep, due]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(dlq.peek()).toEqual([]);
  });
});

describe("the cluster queue takes every kind only in the cluster's message group", () => {
  it('dead-letters a message in another group at once and handles the rest of its batch', async () => {
    const { t, dlq, handler } = await bedWithNodes();
    t.cluster.addPod(makePod('late-0', { cpu: '3', memory: '6Gi' }));
    const claimsBefore = (await t.store.list()).length;
    // Sent after the first pass, so no run has answered it yet.
    const later = Date.parse('2026-11-21T21:10:00Z');
    const at = (body: string, index: number, senderId: string, groupId?: string) =>
      sqsRecord(body, index, { queueArn: QUEUE, senderId, sentAt: later, ...(groupId ? { groupId } : {}) });
    const wrong = [
      at(readFixture('pods-pending.json'), 0, FORWARDER, 'demo-2'),
      at(message('Sweep'), 1, SCHEDULER, 'sweep'),
      at(message('DisruptionDue'), 2, RELAY, 'demo.fifo'),
    ];
    const right = at(readFixture('pods-pending.json'), 3, FORWARDER);
    const out = await handler({ Records: [...wrong, right] }, fakeContext());
    expect(out).toEqual({ batchItemFailures: [] });
    expect(dlq.peek().map((m) => m.attributes?.['karpless-dead-letter-reason'])).toEqual(
      ['demo-2', 'sweep', 'demo.fifo'].map(
        (group) =>
          expect.stringContaining(`MessageGroupId: "${group}" is not this cluster's group "demo"`) as unknown as string,
      ),
    );
    // The message in the cluster's group ran its pass: the late pod has a claim.
    const claims = await t.store.list();
    expect(claims.length).toBe(claimsBefore + 1);
    expect(claims.flatMap((c) => c.nominatedPods.map((p) => p.name))).toContain('late-0');
  });
});
