// End to end on the launch path: the offerings an ICE answer refused, cached in DynamoDB as the launch use-case
// caches them, are planned around until they expire.
import { CreateFleetCommand } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeAws } from '../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../testkit/aws/provider';
import { ec2NodeClass, nodeClaim, nodePool } from '../../testkit/builders';
import { DEFAULT_CONFIG } from '../controllers/deps';
import { InsufficientCapacityError } from '../errors';
import { type LocalDynamo, startLocalDynamo } from './dynamo/local';
import { DynamoNodeClaimStore } from './dynamo/store';

let db: LocalDynamo;
beforeAll(async () => {
  db = await startLocalDynamo('ice');
});
afterAll(async () => {
  await db.stop();
});

describe('insufficient capacity → unavailable offerings → re-plan', () => {
  it('records the refused offerings for 3 minutes and the next launch goes elsewhere', async () => {
    const aws = fakeAws();
    try {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const clock = { now: () => now };
      const store = new DynamoNodeClaimStore({ tableName: db.tableName, cluster: 'ice', client: db.client, clock });
      const provider = fakeAwsProvider(aws, { clock, unavailable: (t) => store.listUnavailable(t) });
      const nodeClass = ec2NodeClass();
      const pick = async () => (await provider.getInstanceTypes(nodeClass)).filter((t) => t.name === 'm5.large');
      const before = await pick();
      const spotZones =
        before[0]?.offerings.filter((o) => o.capacityType === 'spot' && o.available).map((o) => o.zone) ?? [];
      expect(spotZones).toContain('us-east-1a');
      for (const zone of spotZones) aws.state.noCapacity.add(`m5.large/${zone}/spot`);

      const claim = await store.create(nodeClaim({ name: 'ice-1' }));
      const err = await provider
        .create({ claim, nodePool: nodePool(), nodeClass, instanceTypes: before })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InsufficientCapacityError);
      const refused = (err as InsufficientCapacityError).offerings;
      expect(refused.length).toBeGreaterThan(0);
      const expiresAt = now + DEFAULT_CONFIG.iceTtlMs;
      for (const o of refused)
        await store.markUnavailable({ ...o, expiresAt, reason: o.reason ?? 'InsufficientCapacity' });
      // An ICE failure deletes the claim so its pods re-plan (docs/aws.md, "Launch behaviour worth knowing when
      // reading CloudTrail").
      await store.delete(claim);

      const after = await pick();
      const m5 = after[0];
      expect(m5?.offerings.filter((o) => o.capacityType === 'spot' && o.zone === 'us-east-1a')[0]?.available).toBe(
        false,
      );
      const retry = await provider.create({
        claim: nodeClaim({ name: 'ice-2' }),
        nodePool: nodePool(),
        nodeClass,
        instanceTypes: after,
      });
      expect(retry.capacityType).toBe('on-demand');
      const last = aws.ec2.commandCalls(CreateFleetCommand).at(-1)?.args[0].input;
      expect(last?.TargetCapacitySpecification?.DefaultTargetCapacityType).toBe('on-demand');

      now += 181_000; // the cache expires; spot is planned again
      const later = await pick();
      expect(later[0]?.offerings.find((o) => o.capacityType === 'spot' && o.zone === 'us-east-1a')?.available).toBe(
        true,
      );
    } finally {
      aws.restore();
    }
  });
});
