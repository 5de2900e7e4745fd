// NodeOverlays through the real handlers on the local pipeline (docs/api.md, NodeOverlay): the provisioner Lambda
// lists the overlays from the cluster on every pass, so an overlay created while the pipeline runs changes the next
// launch's instance type (the CreateFleet call the instrumented cloud records), lets a pod asking for the extended
// resource it adds get a node, and an invalid one is reported and applied nowhere without failing the batch.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalPipeline } from '../../local';
import type { NodeOverlay, NodeOverlaySpec } from '../../shared/api/nodeoverlay';
import type { PlannedOffering } from '../../shared/scheduling/types';
import type { SimLaunch } from '../../shared/sim/sim-cloud';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';
import { MINUTE } from '../../testkit/repair';
import { allBound, pipeline } from './helpers';

let p: LocalPipeline | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const overlay = (name: string, spec: NodeOverlaySpec): NodeOverlay => ({
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name },
  spec,
});

const onlyType = (type: string) => [
  { key: 'node.kubernetes.io/instance-type', operator: 'In' as const, values: [type] },
];

/** The launch made for the claim that nominated `pod`. */
const launchFor = (launches: SimLaunch[], pod: string) =>
  launches.find((l) => l.claim.nominatedPods.some((x) => x.name === pod));

/** The offering a Provision record priced the claim at. */
async function pricedAt(pipe: LocalPipeline, claim: string): Promise<PlannedOffering | undefined> {
  const record = (await pipe.store.listDecisions(claim)).find((d) => d.kind === 'Provision');
  const claims = (record?.detail.claims ?? []) as { name: string; cheapest: PlannedOffering }[];
  return claims.find((c) => c.name === claim)?.cheapest;
}

describe('local pipeline: NodeOverlay', () => {
  it('launches the type a price overlay created while running makes cheapest', async () => {
    p = await pipeline({ objects: [testNodePool(), testNodeClass(), makePod('web-0', { cpu: '500m' })] });
    const pipe = p;
    const launches: SimLaunch[] = [];
    pipe.simCloud.onLaunch((l) => launches.push(l));
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    // Without an overlay the cheapest type the pool allows wins: c5.large at $0.085/h over m5.large at $0.096/h.
    expect(launchFor(launches, 'web-0')?.instance).toMatchObject({ instanceType: 'c5.large', pricePerHour: 0.085 });

    pipe.forwarder.upsert(overlay('m5-savings-plan', { requirements: onlyType('m5.large'), priceAdjustment: '-50%' }));
    // 1500m does not fit beside web-0, so it needs a node of its own: a c5.large again, but for the overlay.
    pipe.forwarder.addPod(makePod('api-0', { cpu: '1500m' }));
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const api = launchFor(launches, 'api-0');
    expect(api?.instance).toMatchObject({ instanceType: 'm5.large', pricePerHour: 0.048 });
    // The handler made the launch call (CreateFleet in AWS) for this claim with the overlaid price.
    expect(pipe.cloud.creates.map((c) => c.claim)).toContain(api?.claim.name);
    const claim = await pipe.store.get(api?.claim.name ?? '');
    expect(claim).toMatchObject({ instanceType: 'm5.large', pricePerHour: 0.048 });
    expect((await pricedAt(pipe, claim?.name ?? ''))?.overlay).toEqual({
      name: 'm5-savings-plan',
      weight: 0,
      adjustment: 'priceAdjustment: -50%',
      basePrice: 0.096,
    });
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
    // About 15 s of real handlers on a loaded machine, so the harness limit is raised; nothing here measures speed.
  }, 90_000);

  it('lets a pod requesting an extended resource schedule once a capacity overlay adds it, at once', async () => {
    const fuse = makePod('fuse-0', { cpu: '500m', resources: { 'smarter-devices/fuse': '1' } });
    p = await pipeline({ objects: [testNodePool(), testNodeClass(), fuse] });
    const pipe = p;
    await pipe.runFor(3 * MINUTE);
    // No type has the resource: nothing is launched and the pod waits.
    expect((await pipe.sim.listPendingPods()).map((x) => x.metadata.name)).toEqual(['fuse-0']);
    expect(pipe.cloud.creates).toEqual([]);
    expect(await pipe.store.list()).toEqual([]);

    // No Sweep tick from here: the forwarder's watch of the overlay alone must bring the re-plan.
    pipe.stopSweeps();
    pipe.forwarder.upsert(
      overlay('fuse', { requirements: onlyType('m5.large'), capacity: { 'smarter-devices/fuse': 1 } }),
    );
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    expect(pipe.timeline.some((e) => e.kind === 'batch-sent' && e.text.startsWith('NodePoolChanged'))).toBe(true);
    const [claim] = await pipe.store.list({ states: ['Initialized'] });
    expect(claim?.instanceType).toBe('m5.large');
    const node = pipe.sim.getNode(claim?.nodeName ?? '');
    expect(node?.status?.allocatable?.['smarter-devices/fuse']).toBe('1');
    expect(pipe.sim.getPod('default/fuse-0')?.spec.nodeName).toBe(claim?.nodeName);
    expect((await pricedAt(pipe, claim?.name ?? ''))?.capacityOverlays).toEqual({
      'smarter-devices/fuse': { name: 'fuse', weight: 0, quantity: '1' },
    });
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
  });

  it('reports an invalid overlay read from the cluster, applies it nowhere, and still provisions', async () => {
    // Both would make m5.xlarge the cheapest type if they were applied; the API server would have refused the first
    // (price and priceAdjustment are exclusive) but a cluster without the CRD's rules can still hold it.
    const both = overlay('both-prices', {
      requirements: onlyType('m5.xlarge'),
      price: '0.001',
      priceAdjustment: '-99%',
    });
    const malformed = overlay('not-a-list', { requirements: 'm5.xlarge' as never, price: '0.001' });
    p = await pipeline({
      objects: [testNodePool(), testNodeClass(), both, malformed, makePod('web-0', { cpu: '500m' })],
    });
    const pipe = p;
    expect(await pipe.runUntil(allBound(pipe), 5 * MINUTE)).toBe(true);
    const [claim] = await pipe.store.list({ states: ['Initialized'] });
    expect(claim).toMatchObject({ instanceType: 'c5.large', pricePerHour: 0.085 });
    expect((await pricedAt(pipe, claim?.name ?? ''))?.overlay).toBeUndefined();

    const warned = pipe.logs.filter((l) => l.message === 'NodeOverlay not applied');
    const reasons = new Map(warned.map((l) => [l.nodeOverlay, String(l.reason)]));
    expect([...reasons.keys()].sort()).toEqual(['both-prices', 'not-a-list']);
    expect(reasons.get('both-prices')).toMatch(
      /^fails validation: .*NodeOverlay\/both-prices.*spec: cannot set both 'price' and 'priceAdjustment'/,
    );
    expect(reasons.get('not-a-list')).toMatch(/^fails validation: .*NodeOverlay\/not-a-list.*spec\.requirements/);
    expect(pipe.invocations.every((i) => i.failed === 0)).toBe(true);
    expect(pipe.queues.eventsDlq.size).toBe(0);
  });
});
