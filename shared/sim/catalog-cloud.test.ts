import { describe, expect, it } from 'vitest';
import { fixtureClaim, fixtureNodeClass, fixtureNodePool } from '../../testkit/sim-fixtures';
import { loadCatalog } from '../catalog';
import { simCloudFromCatalog } from './catalog-cloud';
import { VirtualClock } from './virtual-clock';

describe('simCloudFromCatalog', () => {
  it('sees the catalog through the node class and launches the cheapest offering of the given options', async () => {
    const clock = new VirtualClock(0);
    const cloud = simCloudFromCatalog(loadCatalog(), { clock, seed: 1 });
    const types = await cloud.getInstanceTypes(fixtureNodeClass);
    const m5 = types.find((t) => t.name === 'm5.large')!;
    expect(m5.allocatable.cpu).toBe(1930);
    const instance = await cloud.create({
      claim: fixtureClaim('a'),
      nodePool: fixtureNodePool,
      nodeClass: fixtureNodeClass,
      instanceTypes: [m5],
    });
    const cheapestSpot = Math.min(...m5.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.price));
    expect(instance).toMatchObject({ instanceType: 'm5.large', capacityType: 'spot', pricePerHour: cheapestSpot });
  });

  it('marks offerings the caller cached as unavailable until they expire on the virtual clock', async () => {
    const clock = new VirtualClock(0);
    const zone = 'us-east-1a';
    const cloud = simCloudFromCatalog(loadCatalog(), {
      clock,
      unavailable: () => [{ instanceType: 'm5.large', zone, capacityType: 'spot', expiresAt: 60_000 }],
    });
    const offering = async () =>
      (await cloud.getInstanceTypes(fixtureNodeClass))
        .find((t) => t.name === 'm5.large')!
        .offerings.find((o) => o.zone === zone && o.capacityType === 'spot');
    expect((await offering())?.available).toBe(false);
    clock.advance(60_001);
    expect((await offering())?.available).toBe(true);
  });
});
