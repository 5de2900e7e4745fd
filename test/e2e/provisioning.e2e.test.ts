import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

describe('local pipeline: provisioning', () => {
  it('turns pending pods into claims, instances, registered nodes and bound pods', async () => {
    p = await pipeline({ pods: 6 });
    const start = p.clock.now();
    expect(await p.runUntil(allBound(p), 5 * 60_000)).toBe(true);
    const kinds = p.timeline.map((e) => e.kind);
    // In causal order: the forwarder's batch, the claim, the instance, the node, its readiness, the binding.
    const first = (k: string) => kinds.indexOf(k as never);
    expect(first('batch-sent')).toBeGreaterThanOrEqual(0);
    expect(first('batch-sent')).toBeLessThan(first('claim'));
    expect(first('claim')).toBeLessThan(first('instance-launched'));
    expect(first('instance-launched')).toBeLessThan(first('node-registered'));
    expect(first('node-registered')).toBeLessThan(first('node-ready'));
    expect(first('node-ready')).toBeLessThan(first('pod-bound'));
    const claims = await p.store.list();
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.every((c) => c.state === 'Initialized')).toBe(true);
    const audit = await p.audit();
    expect(audit).toMatchObject({
      orphanInstances: [],
      duplicateLaunches: [],
      claimsWithoutInstance: [],
      pendingPods: [],
    });
    expect(audit.boundPods).toBe(6);
    expect(audit.instances).toBe(claims.length);
    // Registration (30 s) and readiness (15 s) dominate; the batching window adds about a second.
    expect(p.clock.now() - start).toBeGreaterThanOrEqual(45_000);
    expect(p.clock.now() - start).toBeLessThan(120_000);
    // The real handlers ran: the provisioner's invocations carried forwarder batches and none failed.
    const provisioner = p.invocations.filter((i) => i.fn === 'provisioner');
    expect(provisioner.length).toBeGreaterThan(0);
    expect(provisioner.every((i) => i.failed === 0)).toBe(true);
  });
});
