// The production handler (fresh container each tick, no watch stream): a pod leaving restarts consolidateAfter, a
// nomination protects a node for 20 s, and each Sweep reports its disruption outcome in a log line and metrics.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import { makePod, testNodePool } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

afterEach(() => vi.restoreAllMocks());

async function bed() {
  const output = captureOutput();
  const nodePool = testNodePool();
  nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m' };
  const { t, observability } = functionBed('provisioner', { nodePool });
  t.cluster.addPod(makePod('web-0', { cpu: '250m', memory: '256Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName) throw new Error('no initialized node');
  t.queue.take();
  const sweep = async () => {
    expect(
      await createHandler(() => portsOf(t), observability)(sqsEvent([readFixture('sweep.json')]), fakeContext()),
    ).toEqual({ batchItemFailures: [] });
    t.queue.take();
  };
  return { t, claim, sweep, output };
}

describe('provisioner handler: pod activity kept on the claims', () => {
  it('does not consolidate a node whose last pod left a minute ago; does after 5 more minutes of sweeps', async () => {
    const { t, claim, sweep } = await bed();
    await sweep();
    t.clock.advance(20 * 60_000);
    await sweep();
    expect((await t.store.get(claim.name))?.disruption).toBeUndefined(); // not empty

    t.cluster.deletePod('default/web-0');
    await sweep();
    t.clock.advance(60_000);
    await sweep();
    expect((await t.store.get(claim.name))?.disruption).toBeUndefined();

    // Sweeps at 2, 3 and 4 minutes after the pod left keep the node; the one at 5 minutes decides.
    for (let i = 0; i < 3; i++) {
      t.clock.advance(60_000);
      await sweep();
      expect((await t.store.get(claim.name))?.disruption).toBeUndefined();
    }
    t.clock.advance(60_000);
    await sweep();
    expect((await t.store.get(claim.name))?.disruption).toMatchObject({ cause: 'Empty', phase: 'Validating' });
  });

  it('spares a node nominated just now for 20 s', async () => {
    const { t, claim, sweep } = await bed();
    t.cluster.deletePod('default/web-0');
    await sweep();
    t.clock.advance(10 * 60_000);
    const current = await t.store.get(claim.name);
    if (!current) throw new Error('claim gone');
    await t.store.update(current, { lastNominatedAt: new Date(t.clock.now()).toISOString() });
    t.clock.advance(10_000);
    await sweep();
    expect((await t.store.get(claim.name))?.disruption).toBeUndefined();
    t.clock.advance(15_000);
    await sweep();
    expect((await t.store.get(claim.name))?.disruption?.phase).toBe('Validating');
  });

  it('logs the sweep outcome and emits DisruptionDecided/Started/Dropped', async () => {
    const { t, sweep, output } = await bed();
    t.cluster.deletePod('default/web-0');
    await sweep();
    t.clock.advance(6 * 60_000);
    await sweep();
    const lines = output();
    const logged = lines.filter((l) => l.message === 'disruption sweep');
    expect(logged.at(-1)).toMatchObject({ decided: 1, started: 0, dropped: 0, inflight: 1 });
    const emf = lines.filter((l) => l._aws !== undefined);
    const withDecided = emf.filter(
      (l) => typeof l.DisruptionDecided === 'number' || Array.isArray(l.DisruptionDecided),
    );
    expect(withDecided.length).toBeGreaterThan(0);
    expect(emf.some((l) => 'DisruptionStarted' in l && 'DisruptionDropped' in l)).toBe(true);
    expect(withDecided.some((l) => JSON.stringify(l.DisruptionDecided).includes('1'))).toBe(true);
  });
});
