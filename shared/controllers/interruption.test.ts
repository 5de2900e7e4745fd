import { describe, expect, it } from 'vitest';
import { createTestbed, makePod, type TestbedOptions, testNodePool } from '../../testkit/bed';
import { LabelArch, LabelCapacityType, LabelInstanceType, LabelOS, LabelZone } from '../api/labels';
import type { InterruptionSignal } from '../messages';
import { handleInterruption } from './interruption';

const spotPool = testNodePool('spot', [
  { key: LabelOS, operator: 'In', values: ['linux'] },
  { key: LabelArch, operator: 'In', values: ['amd64'] },
  { key: LabelInstanceType, operator: 'In', values: ['m5.large', 'm5.xlarge', 'c5.large', 'c5.xlarge', 'r5.large'] },
  { key: LabelZone, operator: 'In', values: ['us-east-1a', 'us-east-1b', 'us-east-1c'] },
  { key: LabelCapacityType, operator: 'In', values: ['spot', 'on-demand'] },
]);

async function running(options: TestbedOptions = {}) {
  const t = createTestbed({ nodePool: spotPool, ...options });
  for (let i = 0; i < 3; i++) t.cluster.addPod(makePod(`web-${i}`, { cpu: '300m', memory: '512Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.instanceId) throw new Error('no initialized claim');
  return { t, claim, instanceId: claim.instanceId };
}

const signal = (kind: InterruptionSignal['kind'], instanceIds: string[], extra: Partial<InterruptionSignal> = {}) => ({
  kind,
  instanceIds,
  eventId: 'evt-1',
  at: '2026-01-01T00:01:00Z',
  ...extra,
});

describe('handleInterruption', () => {
  it('spot warning: caches the offering, drains, and launches replacement capacity at once', async () => {
    const { t, claim, instanceId } = await running();
    expect(claim.capacityType).toBe('spot');
    const deadline = new Date(t.clock.now() + 120_000).toISOString();
    const result = await handleInterruption(t.deps, signal('SpotInterruption', [instanceId], { deadline }));
    expect(result.terminating).toEqual([claim.name]);

    const cached = await t.store.listUnavailable(t.clock.now());
    expect(cached).toContainEqual(
      expect.objectContaining({ instanceType: claim.instanceType, zone: claim.zone, capacityType: 'spot' }),
    );
    const draining = await t.store.get(claim.name);
    expect(draining).toMatchObject({ state: 'Draining', disruption: { cause: 'Interrupted' }, drain: { deadline } });
    // The replacement was planned for the displaced pods before any of them was evicted.
    expect(result.replacement?.launched).toHaveLength(1);
    const [replacement] = await t.store.list({ states: ['Launched'] });
    expect(replacement?.nominatedPods.map((p) => p.name).sort()).toEqual(['web-0', 'web-1', 'web-2']);
    expect(`${replacement?.instanceType}/${replacement?.zone}/${replacement?.capacityType}`).not.toBe(
      `${claim.instanceType}/${claim.zone}/spot`,
    );

    const why = (await t.store.listDecisions(replacement?.name ?? '')).map((d) => [d.kind, d.nodeClaims]);
    expect(why).toEqual([
      ['Provision', [replacement?.name]],
      ['Interrupt', [claim.name, replacement?.name]],
    ]);

    // Redelivery of the same warning changes nothing.
    const again = await handleInterruption(t.deps, signal('SpotInterruption', [instanceId], { deadline }));
    expect(again.terminating).toEqual([]);
    expect(await t.store.list({ states: ['Launched', 'Registered', 'Initialized'] })).toHaveLength(1);

    // Drain, evict, replace: no pod is left pending and only the replacement runs.
    await t.settle(3 * 60_000);
    expect(await t.cluster.listPendingPods()).toEqual([]);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    const instances = await t.cloud.list();
    expect(instances.map((i) => i.instanceId)).toEqual([replacement?.instanceId]);
    const serving = await t.store.get(replacement?.name ?? '');
    expect(serving?.state).toBe('Initialized');
    const bound = await t.cluster.listPods();
    expect(bound.map((p) => [p.metadata.name, p.spec.nodeName]).sort()).toEqual(
      ['web-0', 'web-1', 'web-2'].map((n) => [n, serving?.nodeName]),
    );
  });

  it('ignores instances that belong to no claim of this cluster', async () => {
    const { t } = await running();
    const writes = t.store.writes.length;
    const result = await handleInterruption(t.deps, signal('SpotInterruption', ['i-0123456789abcdef0']));
    expect(result).toMatchObject({ ignored: ['i-0123456789abcdef0'], terminating: [] });
    expect(t.store.writes.length).toBe(writes);
    expect(await t.store.listUnavailable(t.clock.now())).toEqual([]);
  });

  it('rebalance recommendation: records an event by default and interrupts when configured', async () => {
    const { t, claim, instanceId } = await running();
    const recorded = await handleInterruption(t.deps, signal('RebalanceRecommendation', [instanceId]));
    expect(recorded.recorded).toEqual([claim.name]);
    expect((await t.store.get(claim.name))?.state).toBe('Initialized');
    expect(t.cluster.events.some((e) => e.reason === 'RebalanceRecommendation')).toBe(true);

    const opted = await running({ config: { rebalance: 'interrupt' } });
    const acted = await handleInterruption(opted.t.deps, signal('RebalanceRecommendation', [opted.instanceId]));
    expect(acted.terminating).toEqual([opted.claim.name]);
    expect((await opted.t.store.get(opted.claim.name))?.state).toBe('Draining');
  });

  it('state change to terminated: ends the claim without waiting and re-plans its pods', async () => {
    const { t, claim, instanceId } = await running();
    const ignored = await handleInterruption(t.deps, signal('StateChange', [instanceId], { state: 'running' }));
    expect(ignored.terminating).toEqual([]);
    const result = await handleInterruption(t.deps, signal('StateChange', [instanceId], { state: 'terminated' }));
    expect(result.terminating).toEqual([claim.name]);
    await t.settle(2 * 60_000);
    expect((await t.store.get(claim.name))?.state).toBe('Terminated');
    expect(await t.cluster.listPendingPods()).toEqual([]);
    expect(await t.cloud.list()).toHaveLength(1);
  });

  it('scheduled change: drains and replaces with the event start as the deadline', async () => {
    const { t, claim, instanceId } = await running();
    const deadline = new Date(t.clock.now() + 3_600_000).toISOString();
    const result = await handleInterruption(t.deps, signal('ScheduledChange', [instanceId], { deadline }));
    expect(result.terminating).toEqual([claim.name]);
    expect(result.replacement?.launched).toHaveLength(1);
    expect((await t.store.get(claim.name))?.drain?.deadline).toBe(deadline);
    // A scheduled change is not a capacity signal: nothing is cached.
    expect(await t.store.listUnavailable(t.clock.now())).toEqual([]);
  });
});
