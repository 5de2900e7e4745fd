import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import type { NodePool } from '../../shared/api/karpenter';
import { AnnotationDoNotDisrupt } from '../../shared/api/labels';
import { parseControlMessage } from '../../shared/events';
import type { SimLaunch } from '../../shared/sim/sim-cloud';
import { makePod, RecordingQueue, testNodePool } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler as createTermination } from '../termination/handler';
import { createHandler as createProvisioner } from './handler';

beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

const TERMINATION_QUEUE = 'arn:aws:sqs:us-west-2:111122223333:karpless-demo-termination';

/** The production handlers on the stack's queue layout: the cluster FIFO queue into the provisioner, the standard
 * termination queue (per-message delays) into the termination function. Every delivery is a fresh container. */
async function bedWith(nodePool: NodePool, pods: { name: string; cpu: string; memory: string }[]) {
  const { t, observability } = functionBed('provisioner', { nodePool });
  const terminationQueue = new RecordingQueue(t.clock);
  t.deps.terminationQueue = terminationQueue;
  const launches: SimLaunch[] = [];
  t.cloud.onLaunch((launch) => launches.push(launch));
  for (const p of pods) t.cluster.addPod(makePod(p.name, { cpu: p.cpu, memory: p.memory }));
  await t.settle(120_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName) throw new Error('no initialized node');
  t.queue.take();
  terminationQueue.take();
  launches.length = 0;
  const ok = { batchItemFailures: [] };
  const provisioner = async (bodies: string[]) =>
    expect(await createProvisioner(() => portsOf(t), observability)(sqsEvent(bodies), fakeContext())).toEqual(ok);
  const termination = async (bodies: string[]) =>
    expect(
      await createTermination(() => portsOf(t), observability)(
        sqsEvent(bodies, { queueArn: TERMINATION_QUEUE }),
        fakeContext(),
      ),
    ).toEqual(ok);
  /** One second of the control plane: a Sweep tick when asked, then whatever is visible on either queue. */
  const tick = async (sweep: boolean) => {
    if (sweep) await provisioner([readFixture('sweep.json')]);
    for (let round = 0; round < 5; round++) {
      const delayed = terminationQueue.take();
      if (delayed.length) await termination(delayed.map((m) => m.body));
      const fifo = t.queue.take();
      if (fifo.length) await provisioner(fifo.map((m) => m.body));
      if (!delayed.length && !fifo.length) break;
    }
  };
  const dueMessages = (queue: RecordingQueue) =>
    queue.sent.filter((m) => parseControlMessage(m.body).kind === 'DisruptionDue');
  return {
    t,
    terminationQueue,
    launches,
    claim,
    nodeName: claim.nodeName,
    provisioner,
    termination,
    tick,
    dueMessages,
  };
}

/** One initialized node whose only pod leaves: an Empty command once consolidateAfter passes. */
async function emptyNode() {
  const nodePool = testNodePool();
  nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m' };
  const bed = await bedWith(nodePool, [{ name: 'web-0', cpu: '250m', memory: '256Mi' }]);
  bed.t.cluster.deletePod('default/web-0');
  bed.t.clock.advance(5 * 60_000);
  return bed;
}

describe('provisioner and termination handlers: the 15 s disruption validation re-check', () => {
  it('validates a decided command 15 s after the decision, through the termination queue, not at the next Sweep tick', async () => {
    const { t, terminationQueue, claim, tick, dueMessages } = await emptyNode();
    const decidedAt = t.clock.now();
    const phases: { at: number; phase: string }[] = [];
    // A Sweep tick every minute, as the default schedule sends it; queues drained every second.
    for (let second = 0; second < 120; second++) {
      await tick(second % 60 === 0);
      const c = await t.store.get(claim.name);
      const phase = [c?.state, c?.disruption?.phase].filter(Boolean).join('/');
      if (phase !== phases.at(-1)?.phase) phases.push({ at: t.clock.now() - decidedAt, phase });
      t.clock.advance(1_000);
    }
    // Decided by the first tick, re-checked 15 s later (not at the 60 s tick) and drained at once: the node was
    // empty, so its termination finished in the same second.
    expect(phases).toEqual([
      { at: 0, phase: 'Initialized/Validating' },
      { at: 15_000, phase: 'Terminated' },
    ]);
    const ended = await t.store.get(claim.name);
    expect(ended?.disruption).toMatchObject({ cause: 'Empty' });
    expect(Date.parse(ended?.stateTimes.Draining ?? '') - decidedAt).toBe(15_000);
    // The re-check went to the termination queue with the delay, and the termination function relayed it to the
    // cluster queue's group, with an id that deduplicates repeats of the same due time.
    const due = new Date(decidedAt + 15_000).toISOString();
    expect(dueMessages(terminationQueue)).toEqual([expect.objectContaining({ delaySeconds: 15 })]);
    expect(parseControlMessage(dueMessages(terminationQueue)[0]?.body ?? '')).toMatchObject({ at: due });
    expect(dueMessages(t.queue)).toEqual([
      expect.objectContaining({ groupId: 'demo', deduplicationId: `disruption-due-${due}` }),
    ]);
    expect(dueMessages(t.queue)[0]).not.toHaveProperty('delaySeconds');
    expect(await t.cloud.list()).toEqual([]);
  });

  it('drops the command 15 s after the decision when a do-not-disrupt pod lands on the node in between', async () => {
    const { t, claim, nodeName, tick } = await emptyNode();
    const decidedAt = t.clock.now();
    await tick(true);
    expect((await t.store.get(claim.name))?.disruption?.phase).toBe('Validating');
    for (let second = 1; second < 15; second++) {
      t.clock.advance(1_000);
      if (second === 10) {
        t.cluster.addPod(
          makePod('batch-0', {
            cpu: '100m',
            memory: '64Mi',
            nodeName,
            annotations: { [AnnotationDoNotDisrupt]: 'true' },
          }),
        );
      }
      await tick(false);
      expect((await t.store.get(claim.name))?.disruption?.phase).toBe('Validating');
    }
    t.clock.advance(1_000);
    await tick(false);
    const kept = await t.store.get(claim.name);
    expect(kept).toMatchObject({ state: 'Initialized' });
    expect(kept?.disruption).toBeUndefined();
    expect(t.cluster.getNode(nodeName)?.spec.taints ?? []).not.toContainEqual(
      expect.objectContaining({ key: 'karpenter.sh/disrupted' }),
    );
    const dropped = (await t.store.listDecisions(claim.name)).filter((d) =>
      d.summary.includes('dropped at validation'),
    );
    expect(dropped.map((d) => [Date.parse(d.at) - decidedAt, d.summary])).toEqual([
      [15_000, expect.stringContaining('do-not-disrupt')],
    ]);

    // The next Sweep tick keeps the node: the pod still forbids its disruption.
    t.clock.advance(45_000);
    await tick(true);
    expect(await t.store.get(claim.name)).toMatchObject({ state: 'Initialized' });
    expect((await t.store.get(claim.name))?.disruption).toBeUndefined();
    expect(await t.cloud.list()).toHaveLength(1);
  });

  it('launches one replacement however often the re-check is delivered', async () => {
    const nodePool = testNodePool();
    nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidateAfter: '1m' };
    // The small pod left on the node fits a strictly cheaper type, and there is no other node: a replace.
    const bed = await bedWith(nodePool, [
      { name: 'big-0', cpu: '2500m', memory: '2Gi' },
      { name: 'small-0', cpu: '250m', memory: '256Mi' },
    ]);
    const { t, terminationQueue, launches, claim, provisioner, termination, dueMessages } = bed;
    t.cluster.deletePod('default/big-0');
    t.clock.advance(2 * 60_000);
    await provisioner([readFixture('sweep.json')]);
    expect(await t.store.get(claim.name)).toMatchObject({
      disruption: { cause: 'Underutilized', phase: 'Validating' },
    });

    // The delayed message delivered twice (standard queues deliver at least once): both copies are relayed with one
    // deduplication id, which the FIFO queue would collapse; here the provisioner gets every copy regardless.
    t.clock.advance(15_000);
    const [scheduled] = terminationQueue.take();
    if (!scheduled) throw new Error('no DisruptionDue scheduled');
    await termination([scheduled.body, scheduled.body]);
    const relayed = t.queue.take().filter((m) => parseControlMessage(m.body).kind === 'DisruptionDue');
    expect(new Set(relayed.map((m) => m.deduplicationId)).size).toBe(1);
    await provisioner([...relayed.map((m) => m.body), scheduled.body]);
    t.clock.advance(5_000);
    await provisioner([scheduled.body]);

    const current = await t.store.get(claim.name);
    expect(current?.disruption).toMatchObject({ phase: 'Launching', replacements: [expect.any(String)] });
    const replacement = current?.disruption?.replacements?.[0];
    expect(launches.map((l) => l.claim.name)).toEqual([replacement]);
    const claims = await t.store.list();
    expect(claims.filter((c) => c.name !== claim.name).map((c) => c.name)).toEqual([replacement]);
    // Nothing more to re-check: the command is launching, so no further DisruptionDue was scheduled.
    expect(dueMessages(terminationQueue)).toHaveLength(1);
  });
});
