import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import { AnnotationDoNotDisrupt } from '../../shared/api/labels';
import { makePod, testNodePool } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

beforeEach(() => {
  captureOutput();
});
afterEach(() => vi.restoreAllMocks());

/** The production handler (its own disruption sweep) over one initialized node whose only pod then leaves. */
async function emptyNode() {
  const nodePool = testNodePool();
  nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m' };
  const { t, observability } = functionBed('provisioner', { nodePool });
  const handler = createHandler(() => portsOf(t), observability);
  // Each tick a fresh container (a new handler, nothing kept in memory): the command must resume from the claims.
  const coldHandler = () => createHandler(() => portsOf(t), observability);
  t.cluster.addPod(makePod('web-0', { cpu: '250m', memory: '256Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName) throw new Error('no initialized node');
  t.cluster.deletePod('default/web-0');
  t.queue.take();
  const sweep = async () =>
    expect(await coldHandler()(sqsEvent([readFixture('sweep.json')]), fakeContext())).toEqual({
      batchItemFailures: [],
    });
  return { t, handler, sweep, claim, nodeName: claim.nodeName };
}

describe('provisioner handler: disruption across Sweep ticks', () => {
  it('removes an empty node after consolidateAfter: decision, validation and termination in separate invocations', async () => {
    const { t, handler, sweep, claim } = await emptyNode();
    await sweep();
    // Initialized about a minute ago: consolidateAfter (5m) has not passed.
    expect((await t.store.get(claim.name))?.disruption).toBeUndefined();

    t.clock.advance(5 * 60_000);
    await sweep();
    const decided = await t.store.get(claim.name);
    expect(decided).toMatchObject({ state: 'Initialized', disruption: { cause: 'Empty', phase: 'Validating' } });
    const commandId = decided?.disruption?.commandId;
    expect(commandId).toBeTruthy();

    // A tick before the 15 s re-check is due (a redelivery, say) leaves the command waiting.
    t.clock.advance(5_000);
    await sweep();
    expect((await t.store.get(claim.name))?.disruption).toMatchObject({ phase: 'Validating', commandId });

    t.clock.advance(60_000);
    await sweep();
    const draining = await t.store.get(claim.name);
    expect(draining).toMatchObject({ state: 'Draining', disruption: { cause: 'Empty' } });
    expect(draining?.disruption?.phase).toBeUndefined();

    for (let i = 0; i < 20 && (await t.store.get(claim.name))?.state !== 'Terminated'; i++) {
      for (const m of t.queue.take()) await handler(sqsEvent([m.body]), fakeContext());
      t.clock.advance(5_000);
    }
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(await t.cloud.list()).toEqual([]);
    expect((await t.store.listDecisions(claim.name)).some((d) => d.kind === 'Disrupt')).toBe(true);
  });

  it('drops the command at validation when a do-not-disrupt pod lands on the node in between', async () => {
    const { t, sweep, claim, nodeName } = await emptyNode();
    t.clock.advance(5 * 60_000);
    await sweep();
    expect((await t.store.get(claim.name))?.disruption?.phase).toBe('Validating');

    t.cluster.addPod(
      makePod('batch-0', { cpu: '100m', memory: '64Mi', nodeName, annotations: { [AnnotationDoNotDisrupt]: 'true' } }),
    );
    t.clock.advance(60_000);
    await sweep();
    const kept = await t.store.get(claim.name);
    expect(kept?.state).toBe('Initialized');
    expect(kept?.disruption).toBeUndefined();
    expect(t.cluster.getNode(nodeName)?.spec.taints ?? []).not.toContainEqual(
      expect.objectContaining({ key: 'karpenter.sh/disrupted' }),
    );
    const decisions = await t.store.listDecisions(claim.name);
    expect(decisions.some((d) => d.summary.includes('dropped at validation'))).toBe(true);

    // Later ticks keep it: the pod still forbids disruption.
    t.clock.advance(10 * 60_000);
    await sweep();
    expect(await t.store.get(claim.name)).toMatchObject({ state: 'Initialized' });
    expect((await t.cloud.list()).length).toBe(1);
  });
});
