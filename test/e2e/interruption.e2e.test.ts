import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import { testNodeClass } from '../../testkit/bed';
import { allBound, pipeline, pods, spotPool, spotWarning } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('local pipeline: spot interruption', () => {
  it('drains and replaces the interrupted node, leaving no pod unscheduled', async () => {
    p = await pipeline({ objects: [spotPool(), testNodeClass(), ...pods(4)] });
    expect(await p.runUntil(allBound(p), 5 * 60_000)).toBe(true);
    const [victim] = await p.simCloud.list();
    if (!victim) throw new Error('no instance launched');
    expect(victim.capacityType).toBe('spot');
    const node = p.sim.nodeForProviderId(victim.providerID)?.metadata.name;
    const displaced = (await p.sim.listPods({ nodeName: node ?? '' })).length;
    expect(displaced).toBeGreaterThan(0);

    p.sendInterruption(spotWarning(victim.instanceId, p.clock.iso()));
    const gone = async () =>
      (await p?.simCloud.get(victim.instanceId))?.state === 'terminated' &&
      (await (p as LocalPipeline).sim.listPendingPods()).length === 0;
    expect(await (p as LocalPipeline).runUntil(gone, 10 * 60_000)).toBe(true);

    const audit = await p.audit();
    expect(audit).toMatchObject({
      pendingPods: [],
      orphanInstances: [],
      duplicateLaunches: [],
      claimsWithoutInstance: [],
    });
    expect(audit.boundPods).toBe(4);
    expect(p.sim.getNode(node ?? '')).toBeUndefined();
    const victimClaim = await p.store.getByInstanceId(victim.instanceId);
    expect(victimClaim?.state).toBe('Terminated');
    // Every displaced pod landed on a node launched after the warning.
    const kinds = p.timeline.filter((e) => e.kind === 'pod-evicted').length;
    expect(kinds).toBe(displaced);
    expect(p.queues.interruptionDlq.size + p.queues.terminationDlq.size + p.queues.eventsDlq.size).toBe(0);
  });
});
