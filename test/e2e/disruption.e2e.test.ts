import { afterEach, describe, expect, it } from 'vitest';
import { makePod, testNodeClass, testNodePool } from '../../shared/controllers/testing';
import type { LocalPipeline } from '../../shared/pipeline';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('local pipeline: disruption', () => {
  it('re-checks a decided command 15 s after the decision, relayed from the termination queue to the FIFO queue', async () => {
    const nodePool = testNodePool();
    nodePool.spec.disruption = {
      ...nodePool.spec.disruption,
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: '30s',
    };
    p = await pipeline({
      objects: [nodePool, testNodeClass(), makePod('web-0', { cpu: '250m', memory: '256Mi' })],
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * 60_000)).toBe(true);
    const [claim] = await pipe.store.list({ states: ['Initialized'] });
    if (!claim) throw new Error('no initialized claim');
    pipe.sim.deletePod('default/web-0');

    const ended = async () => (await pipe.store.get(claim.name))?.state === 'Terminated';
    expect(await pipe.runUntil(ended, 10 * 60_000)).toBe(true);

    const disrupt = (await pipe.store.listDecisions(claim.name)).find((d) => d.kind === 'Disrupt');
    if (!disrupt) throw new Error('no Disrupt record');
    const decidedAt = Date.parse(disrupt.at);
    const drainedAt = Date.parse((await pipe.store.get(claim.name))?.stateTimes.Draining ?? '');
    // Re-checked when due, not at the next minute's Sweep tick.
    expect(drainedAt - decidedAt).toBe(15_000);
    // The termination function ran at that moment (the delayed DisruptionDue) and the provisioner after it.
    const at = (fn: string) => pipe.invocations.filter((i) => i.fn === fn && i.at === drainedAt);
    expect(at('termination').length).toBeGreaterThan(0);
    expect(at('provisioner').length).toBeGreaterThan(0);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
    expect(pipe.queues.eventsDlq.size + pipe.queues.terminationDlq.size).toBe(0);
    expect(await pipe.cloud.list()).toEqual([]);
  });
});
