import { describe, expect, it } from 'vitest';
import { createTestbed, makePod } from '../../testkit/bed';
import { nodeClaim } from '../../testkit/builders';
import type { MetricName } from '../metrics';
import { startTermination, terminateStep } from './termination';
import { REDRIVE_BACKOFF_CAP_MS, redriveStalledTerminations, redriveWindowMs } from './termination-redrive';

const MINUTE = 60_000;

/** A bed with one node draining; the drain's queued first step is taken away, as a dead-lettered chain is. */
async function strandedDrain() {
  const t = createTestbed();
  t.cluster.addPod(makePod('web-0', { cpu: '250m', memory: '256Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim) throw new Error('no initialized node');
  await startTermination(t.deps, claim, { cause: 'Deleted' });
  t.queue.take();
  const metrics: [MetricName, number][] = [];
  t.deps.metric = (name, value) => metrics.push([name, value]);
  const terminates = () => t.queue.take().filter((m) => (JSON.parse(m.body) as { kind: string }).kind === 'Terminate');
  return { t, claim, metrics, terminates };
}

describe('redriveStalledTerminations', () => {
  it('queues a stalled drain again once its stall window passed, and counts it', async () => {
    const { t, claim, metrics, terminates } = await strandedDrain();
    t.clock.advance(29 * MINUTE);
    expect((await redriveStalledTerminations(t.deps)).redriven).toEqual([]);
    expect(terminates()).toHaveLength(0);
    t.clock.advance(2 * MINUTE);
    expect((await redriveStalledTerminations(t.deps)).redriven).toEqual([claim.name]);
    expect(terminates()).toHaveLength(1);
    expect((await t.store.get(claim.name))?.redrive).toEqual({ count: 1, at: t.clock.iso() });
    expect(metrics).toEqual([
      ['TerminationsRedriven', 0],
      ['TerminationsRedriven', 1],
    ]);
  });

  it('is idempotent: a second tick at once queues nothing more', async () => {
    const { t, terminates } = await strandedDrain();
    t.clock.advance(31 * MINUTE);
    await redriveStalledTerminations(t.deps);
    expect((await redriveStalledTerminations(t.deps)).redriven).toEqual([]);
    expect(terminates()).toHaveLength(1);
  });

  it('backs off: each redrive of the same claim doubles the window, up to the cap', async () => {
    const { t, claim } = await strandedDrain();
    t.clock.advance(31 * MINUTE);
    await redriveStalledTerminations(t.deps);
    t.clock.advance(59 * MINUTE);
    expect((await redriveStalledTerminations(t.deps)).redriven).toEqual([]);
    t.clock.advance(2 * MINUTE);
    expect((await redriveStalledTerminations(t.deps)).redriven).toEqual([claim.name]);
    expect((await t.store.get(claim.name))?.redrive?.count).toBe(2);
    expect(redriveWindowMs(30 * MINUTE, 2)).toBe(120 * MINUTE);
    expect(redriveWindowMs(30 * MINUTE, 20)).toBe(REDRIVE_BACKOFF_CAP_MS);
  });

  it('leaves a drain whose steps move it on alone, however long it takes', async () => {
    const { t, claim } = await strandedDrain();
    t.clock.advance(25 * MINUTE);
    // A step that runs is progress: it stamps the drain, and the window counts from there.
    const step = await terminateStep(t.deps, claim.name);
    expect(step.done).toBe(false);
    expect((await t.store.get(claim.name))?.drain?.steppedAt).toBe(t.clock.iso());
    t.clock.advance(25 * MINUTE);
    expect((await redriveStalledTerminations(t.deps)).redriven).toEqual([]);
  });

  it('leaves a failed launch with nothing to end as the failure record, and ends a failed claim with an instance', async () => {
    const t = createTestbed();
    const record = await t.store.create(nodeClaim({ name: 'never-launched', cluster: 'test' }));
    await t.store.transition(record, 'Failed', { failure: { reason: 'LaunchFailed', message: 'no capacity' } });
    const timedOut = await t.store.create(nodeClaim({ name: 'timed-out', cluster: 'test', instanceId: 'i-0abc' }));
    await t.store.transition(timedOut, 'Failed', { failure: { reason: 'RegistrationTimeout', message: 'late' } });
    t.clock.advance(31 * MINUTE);
    expect((await redriveStalledTerminations(t.deps)).redriven).toEqual(['timed-out']);
  });
});
