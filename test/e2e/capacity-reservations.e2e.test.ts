// Capacity reservations through the real handlers on the local pipeline (docs/aws.md, Capacity reservations): the
// forwarder's batch reaches the provisioner Lambda, whose launches target the reservation the EC2NodeClass selects
// while it has room, and fall back to on-demand once it is exhausted.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import {
  LabelArch,
  LabelCapacityReservationId,
  LabelCapacityType,
  LabelInstanceType,
  LabelOS,
  LabelZone,
} from '../../shared/api/labels';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import { testNodeClass, testNodePool } from '../../testkit/bed';
import { reservation } from '../../testkit/reservations';
import { allBound, pipeline, pods } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

function reservedObjects(n: number) {
  const nodeClass = testNodeClass();
  nodeClass.spec.capacityReservationSelectorTerms = [{ tags: { team: 'ml' } }];
  const pool = testNodePool('default', [
    { key: LabelOS, operator: 'In', values: ['linux'] },
    { key: LabelArch, operator: 'In', values: ['amd64'] },
    { key: LabelInstanceType, operator: 'In', values: ['m5.large'] },
    { key: LabelZone, operator: 'In', values: ['us-east-1a'] },
    { key: LabelCapacityType, operator: 'In', values: ['reserved', 'on-demand'] },
  ]);
  // 1500m each: one pod fills an m5.large, so each needs its own node.
  return [pool, nodeClass, ...pods(n, 'train', '1500m')];
}

describe('local pipeline: capacity reservations', () => {
  it('launches into the reservation while it has room, then falls back to on-demand', async () => {
    p = await pipeline({ objects: reservedObjects(3) });
    p.simCloud.addReservations([reservation({ id: 'cr-0a1', totalInstanceCount: 2, tags: { team: 'ml' } })]);
    const launched: NodeClaim[] = [];
    p.simCloud.onLaunch((l) => launched.push(l.claim));
    expect(await p.runUntil(allBound(p), 5 * 60_000)).toBe(true);

    // The provisioner Lambda pinned each reserved claim to the reservation, so its launch request targets it.
    const pinned = launched.filter((c) =>
      c.requirements.some((r) => r.key === LabelCapacityReservationId && r.values?.includes('cr-0a1')),
    );
    expect(pinned.length).toBe(2);
    const claims = await p.store.list();
    expect(claims.map((c) => [c.capacityType, c.capacityReservation?.id]).sort()).toEqual([
      ['on-demand', undefined],
      ['reserved', 'cr-0a1'],
      ['reserved', 'cr-0a1'],
    ]);
    const nodes = await p.sim.listNodes();
    expect(nodes.map((n) => n.metadata.labels?.[LabelCapacityType]).sort()).toEqual([
      'on-demand',
      'reserved',
      'reserved',
    ]);
    expect(p.simCloud.liveReservations()[0]?.availableInstanceCount).toBe(0);
    expect(await p.audit()).toMatchObject({ orphanInstances: [], duplicateLaunches: [], pendingPods: [] });
    const provisioner = p.invocations.filter((i) => i.fn === 'provisioner');
    expect(provisioner.length).toBeGreaterThan(0);
    expect(provisioner.every((i) => i.failed === 0)).toBe(true);
  });
});
