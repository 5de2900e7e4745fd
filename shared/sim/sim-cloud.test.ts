import { describe, expect, it } from 'vitest';
import { fixtureClaim, fixtureNodeClass, fixtureNodePool, fixtureType } from '../../testkit/sim-fixtures';
import { instanceTypesFor, loadCatalog } from '../catalog';
import { InsufficientCapacityError, LaunchError } from '../errors';
import { SimCloud } from './sim-cloud';
import { VirtualClock } from './virtual-clock';

const small = fixtureType('m5.large', 2, [
  { zone: 'us-east-1a', capacityType: 'on-demand', price: 0.096 },
  { zone: 'us-east-1a', capacityType: 'spot', price: 0.04 },
  { zone: 'us-east-1b', capacityType: 'spot', price: 0.035 },
]);
const big = fixtureType('m5.xlarge', 4, [
  { zone: 'us-east-1a', capacityType: 'on-demand', price: 0.192 },
  { zone: 'us-east-1b', capacityType: 'spot', price: 0.03 },
]);

function cloud(seed = 1) {
  return new SimCloud({ clock: new VirtualClock(0), seed, cluster: 'demo', instanceTypes: () => [small, big] });
}

const request = (name: string, instanceTypes = [small, big]) => ({
  claim: fixtureClaim(name),
  nodePool: fixtureNodePool,
  nodeClass: fixtureNodeClass,
  instanceTypes,
});

describe('SimCloud', () => {
  it('launches the cheapest available spot offering among the options', async () => {
    const instance = await cloud().create(request('a'));
    expect(instance).toMatchObject({
      instanceType: 'm5.xlarge',
      zone: 'us-east-1b',
      capacityType: 'spot',
      pricePerHour: 0.03,
      state: 'running',
    });
    expect(instance.instanceId).toMatch(/^i-[0-9a-f]{17}$/);
    expect(instance.providerID).toBe(`aws:///us-east-1b/${instance.instanceId}`);
    expect(instance.tags).toMatchObject({
      'karpenter.sh/nodepool': 'general',
      'karpenter.sh/nodeclaim': 'a',
      'kubernetes.io/cluster/demo': 'owned',
      team: 'platform',
    });
  });

  it('falls back to on-demand when no spot offering is available', async () => {
    const onDemandOnly = fixtureType('c5.large', 2, [
      { zone: 'us-east-1a', capacityType: 'on-demand', price: 0.085 },
      { zone: 'us-east-1b', capacityType: 'spot', price: 0.02, available: false },
    ]);
    const instance = await cloud().create(request('a', [onDemandOnly]));
    expect(instance).toMatchObject({ capacityType: 'on-demand', zone: 'us-east-1a', pricePerHour: 0.085 });
  });

  it('is idempotent on the claim uid', async () => {
    const sim = cloud();
    const first = await sim.create(request('a'));
    const again = await sim.create(request('a'));
    expect(again.instanceId).toBe(first.instanceId);
    expect(await sim.list()).toHaveLength(1);
  });

  it('derives instance ids from the seed', async () => {
    const ids = async (seed: number) => {
      const sim = cloud(seed);
      return [(await sim.create(request('a'))).instanceId, (await sim.create(request('b'))).instanceId];
    };
    expect(await ids(5)).toEqual(await ids(5));
    expect(await ids(5)).not.toEqual(await ids(6));
  });

  it('skips offerings with injected insufficient capacity, and throws when none is left', async () => {
    const sim = cloud();
    sim.injectInsufficientCapacity({ instanceType: 'm5.xlarge', zone: 'us-east-1b', capacityType: 'spot' });
    expect(await sim.create(request('a'))).toMatchObject({ instanceType: 'm5.large', pricePerHour: 0.035 });

    for (const o of small.offerings) sim.injectInsufficientCapacity({ instanceType: 'm5.large', ...o });
    sim.injectInsufficientCapacity({ instanceType: 'm5.xlarge', zone: 'us-east-1a', capacityType: 'on-demand' });
    const error = await sim.create(request('b')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientCapacityError);
    expect((error as InsufficientCapacityError).offerings).toHaveLength(5);
    expect((error as InsufficientCapacityError).offerings[0]).toMatchObject({ reason: 'InsufficientInstanceCapacity' });

    sim.restoreCapacity();
    expect(await sim.create(request('b'))).toMatchObject({ instanceType: 'm5.xlarge' });
  });

  it('fails a launch on request and rejects a request without instance types', async () => {
    const sim = cloud();
    sim.failNextLaunch(new LaunchError('spot-disabled', 'spot is not enabled'));
    await expect(sim.create(request('a'))).rejects.toMatchObject({ kind: 'spot-disabled' });
    await expect(sim.create(request('a', []))).rejects.toMatchObject({ kind: 'invalid-config' });
    expect(await sim.create(request('a'))).toBeDefined();
  });

  it('gets, lists and deletes; deleting twice is fine', async () => {
    const sim = cloud();
    const deleted: string[] = [];
    sim.onDelete((i) => deleted.push(i.instanceId));
    const a = await sim.create(request('a'));
    const b = await sim.create(request('b'));
    expect((await sim.get(a.instanceId))?.state).toBe('running');
    await sim.delete(a.instanceId);
    await sim.delete(a.instanceId);
    await sim.delete('i-missing');
    expect((await sim.get(a.instanceId))?.state).toBe('terminated');
    expect((await sim.list()).map((i) => i.instanceId)).toEqual([b.instanceId]);
    expect(deleted).toEqual([a.instanceId]);
    expect(await sim.get('i-missing')).toBeUndefined();
  });

  it('returns the node class instance types and reports AMI drift', async () => {
    const sim = cloud();
    expect((await sim.getInstanceTypes(fixtureNodeClass)).map((t) => t.name)).toEqual(['m5.large', 'm5.xlarge']);
    const instance = await sim.create(request('a'));
    const claim = { ...fixtureClaim('a'), instanceId: instance.instanceId };
    expect(await sim.isDrifted(claim, fixtureNodeClass)).toBeUndefined();
    const newer = { ...fixtureNodeClass, spec: { ...fixtureNodeClass.spec, amiSelectorTerms: [{ id: 'ami-new' }] } };
    expect(await sim.isDrifted(claim, newer)).toMatch(/^AMIDrift/);
  });

  it('sees the catalog through the node class and launches the cheapest offering of the given options', async () => {
    const catalog = loadCatalog();
    const sim = new SimCloud({
      clock: new VirtualClock(0),
      seed: 1,
      instanceTypes: (nodeClass) => instanceTypesFor(catalog, nodeClass),
    });
    const types = await sim.getInstanceTypes(fixtureNodeClass);
    const m5 = types.find((t) => t.name === 'm5.large');
    expect(m5?.allocatable.cpu).toBe(1930);
    const instance = await sim.create(request('a', m5 ? [m5] : []));
    const cheapestSpot = Math.min(
      ...(m5?.offerings ?? []).filter((o) => o.capacityType === 'spot').map((o) => o.price),
    );
    expect(instance).toMatchObject({ instanceType: 'm5.large', capacityType: 'spot', pricePerHour: cheapestSpot });
  });
});
