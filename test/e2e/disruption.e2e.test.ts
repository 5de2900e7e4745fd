import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import { LabelCapacityType, LabelInstanceType, LabelZone } from '../../shared/api/labels';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('local pipeline: disruption', () => {
  it('splits an oversized node over two cheaper ones through the real handlers, and loses no pod', async () => {
    const c6a = ['c6a.large', 'c6a.xlarge', 'c6a.2xlarge', 'c6a.4xlarge'];
    const nodePool = testNodePool('default', [
      { key: LabelInstanceType, operator: 'In', values: c6a },
      { key: LabelZone, operator: 'In', values: ['us-east-1a'] },
      { key: LabelCapacityType, operator: 'In', values: ['on-demand'] },
    ]);
    nodePool.spec.disruption = { ...nodePool.spec.disruption, consolidateAfter: '30s', budgets: [{ nodes: '100%' }] };
    const web = Array.from({ length: 17 }, (_, i) => makePod(`web-${i}`, { cpu: '900m', memory: '1Gi' }));
    p = await pipeline({ objects: [nodePool, testNodeClass(), ...web] });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * 60_000)).toBe(true);
    const [big, ...others] = await pipe.store.list({ states: ['Initialized'] });
    if (!big) throw new Error('no initialized claim');
    // 17 pods of 900m fill one 16-vCPU node; the scale-down below leaves it 10, which fit two smaller nodes for less.
    expect([big.instanceType, others.length]).toEqual(['c6a.4xlarge', 0]);
    for (let i = 10; i < 17; i++) pipe.sim.deletePod(`default/web-${i}`);

    const replaced = async () => (await pipe.store.get(big.name))?.state === 'Terminated';
    expect(await pipe.runUntil(replaced, 15 * 60_000)).toBe(true);
    const disrupt = (await pipe.store.listDecisions(big.name)).find((d) => d.kind === 'Disrupt');
    expect(disrupt?.detail.method).toBe('split');
    const live = await pipe.store.list({ states: ['Initialized'] });
    expect(live.length).toBeGreaterThanOrEqual(2);
    const cost = live.reduce((sum, c) => sum + (c.pricePerHour ?? 0), 0);
    // No single node cheaper than the 4xlarge holds 10 such pods, so only a split could save the 5 % minimum.
    expect(cost).toBeLessThanOrEqual((big.pricePerHour ?? 0) * 0.95);
    expect(await pipe.runUntil(allBound(pipe), 60_000)).toBe(true);
    expect(pipe.sim.allPods().filter((pod) => pod.spec.nodeName).length).toBe(10);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
    expect(pipe.queues.eventsDlq.size + pipe.queues.terminationDlq.size).toBe(0);
    expect((await pipe.cloud.list()).filter((i) => i.state !== 'terminated')).toHaveLength(live.length);
  });

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
