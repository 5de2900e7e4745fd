import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, RecordingQueue } from '../../testkit/bed';
import { parseControlMessage } from '../events';
import type { ControlMessage, DisruptionDueMessage } from '../messages';
import type { InstanceDeps } from './deps';
import { startTermination } from './termination';
import { handleTerminationQueueMessage } from './termination-queue';

/** The termination function's view: its own delayed queue, and a cloud it can only list, get and terminate. A call to
 * anything else (a launch) would throw, since the object has nothing else. */
async function bed() {
  const t = createTestbed({ cluster: 'demo' });
  t.cluster.addPod(makePod('web-0', { cpu: '250m', memory: '256Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName) throw new Error('no initialized node');
  const termination = new RecordingQueue(t.clock);
  const { cloud } = t;
  const deps: InstanceDeps = {
    ...t.deps,
    cloud: { delete: (id) => cloud.delete(id), get: (id) => cloud.get(id), list: () => cloud.list() },
    terminationQueue: termination,
  };
  t.queue.take();
  t.queue.sent.length = 0;
  return { t, deps, claim, termination };
}

const due = (at: number): DisruptionDueMessage => ({
  v: 1,
  cluster: 'demo',
  kind: 'DisruptionDue',
  at: new Date(at).toISOString(),
});

describe('handleTerminationQueueMessage', () => {
  it('runs a drain step by step, each re-queued on the termination queue, until the instance is gone', async () => {
    const { t, deps, claim, termination } = await bed();
    await startTermination(deps, claim, { cause: 'Deleted' });
    const steps: boolean[] = [];
    for (let i = 0; i < 10; i++) {
      const [message] = termination.take();
      if (!message) break;
      const result = await handleTerminationQueueMessage(deps, parseControlMessage(message.body), `m${i}`);
      expect(result.kind).toBe('terminate');
      steps.push(result.kind === 'terminate' && result.result.done);
      t.clock.advance(20_000);
    }
    expect(steps.at(-1)).toBe(true);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(claim.instanceId && (await t.cloud.get(claim.instanceId))?.state).toBe('terminated');
    // Nothing was planned: the cluster queue got no work from the drain.
    expect(t.queue.kinds()).not.toContain('PodsPending');
  });

  it('relays a due re-check to the cluster FIFO queue, one deduplication id per due time', async () => {
    const { t, deps, termination } = await bed();
    const at = t.clock.now();
    for (const message of [due(at), due(at), due(at + 60_000)]) {
      expect(await handleTerminationQueueMessage(deps, message, 'm')).toEqual({
        kind: 'relayed',
        message: 'DisruptionDue',
      });
    }
    expect(termination.sent).toEqual([]);
    // A duplicate delivery relays with the same id, which FIFO deduplication drops.
    expect(t.queue.sent.map((m) => [m.groupId, m.deduplicationId, parseControlMessage(m.body)])).toEqual([
      ['demo', `disruption-due-${new Date(at).toISOString()}`, due(at)],
      ['demo', `disruption-due-${new Date(at).toISOString()}`, due(at)],
      ['demo', `disruption-due-${new Date(at + 60_000).toISOString()}`, due(at + 60_000)],
    ]);
  });

  it('hands a misrouted planning hint to the cluster queue rather than planning a second time', async () => {
    const { t, deps } = await bed();
    t.cluster.addPod(makePod('web-1', { cpu: '3', memory: '4Gi' }));
    const claimsBefore = (await t.store.list()).length;
    const pending: ControlMessage = { v: 1, cluster: 'demo', kind: 'PodsPending', at: t.clock.iso(), refs: [] };
    expect(await handleTerminationQueueMessage(deps, pending, 'sqs-1')).toEqual({
      kind: 'relayed',
      message: 'PodsPending',
    });
    expect((await t.store.list()).length).toBe(claimsBefore);
    // Redelivered, it is relayed under the same id, so the provisioner sees it once.
    await handleTerminationQueueMessage(deps, pending, 'sqs-1');
    expect(t.queue.sent.map((m) => [m.groupId, m.deduplicationId, parseControlMessage(m.body)])).toEqual([
      ['demo', 'relayed-sqs-1', pending],
      ['demo', 'relayed-sqs-1', pending],
    ]);
  });

  it("refuses another cluster's message", async () => {
    const { deps } = await bed();
    await expect(handleTerminationQueueMessage(deps, { ...due(0), cluster: 'other' }, 'm')).rejects.toThrow(
      'message for cluster other reached the handler of cluster demo',
    );
  });
});
