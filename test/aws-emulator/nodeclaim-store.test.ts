// The DynamoDB NodeClaim store on moto_server's DynamoDB: the project's table definition, and every write
// conditional on the version read, so racing writers and stale readers are refused by DynamoDB itself.
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../../shared/api/nodeclaim';
import { createTableInput } from '../../shared/aws/dynamo/schema';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { ConflictError } from '../../shared/errors';
import { nodeClaim } from '../../testkit/builders';
import { type Emulator, emulator } from './emulator';

const TABLE = 'karpless-store-test';
let aws: Emulator;
let now = Date.parse('2026-11-25T12:00:00Z');
let clusters = 0;

beforeAll(async () => {
  aws = emulator();
  await aws.dynamo.send(new CreateTableCommand(createTableInput(TABLE)));
});

/** A fresh partition (cluster) per test on the one table. */
const store = () =>
  new DynamoNodeClaimStore({
    tableName: TABLE,
    cluster: `c${++clusters}`,
    client: aws.documents,
    clock: { now: () => now },
  });

describe('DynamoNodeClaimStore on the emulator', () => {
  it('creates the table with its instance-id index and TTL attribute as the stack does', async () => {
    const described = await aws.dynamo.send(new DescribeTableCommand({ TableName: TABLE }));
    expect(described.Table?.KeySchema?.map((k) => k.AttributeName)).toEqual(['PK', 'SK']);
    expect(described.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['byInstanceId']);
  });

  it('creates a claim once: a second create of the name fails the attribute_not_exists condition', async () => {
    const s = store();
    const created = await s.create(nodeClaim());
    expect(await s.get(created.name)).toEqual(created);
    await expect(s.create(nodeClaim())).rejects.toBeInstanceOf(ConflictError);
    expect(await s.get('missing')).toBeUndefined();
  });

  // moto_server answers on threads and checks a condition, then writes, without a lock, so two truly concurrent
  // conditional writes can both pass there (it happened once under load). The concurrent race is held on dynalite,
  // which serializes them as DynamoDB does (shared/aws/dynamo/store.test.ts); here the two transitions from one read
  // go one after the other, and the second must meet the condition the first one broke.
  it('lets only the first of two transitions from the same version win', async () => {
    const s = store();
    const c = await s.create(nodeClaim());
    const won = await s.transition(c, 'Launched', { instanceId: 'i-0aaa' });
    await expect(s.transition(c, 'Failed', { failure: { reason: 'x', message: 'y' } })).rejects.toBeInstanceOf(
      ConflictError,
    );
    const stored = await s.get(c.name);
    expect(stored?.version).toBe(c.version + 1);
    expect(stored).toEqual(won);
  });

  it('refuses an update and a delete from a stale read, and illegal transitions before writing', async () => {
    const s = store();
    const c = await s.create(nodeClaim());
    now += 1_000;
    const launched = await s.transition(c, 'Launched', { instanceId: 'i-0bbb', zone: 'us-east-1a' });
    await expect(s.update(c, { zone: 'us-east-1b' })).rejects.toBeInstanceOf(ConflictError);
    await expect(s.delete(c)).rejects.toBeInstanceOf(ConflictError);
    await expect(s.transition(launched, 'Pending')).rejects.toBeInstanceOf(IllegalTransitionError);
    expect((await s.get(c.name))?.zone).toBe('us-east-1a');
    await s.delete(launched);
    expect(await s.get(c.name)).toBeUndefined();
  });

  it('finds a claim by instance id through the index, and lists by state', async () => {
    const s = store();
    const a = await s.create(nodeClaim({ name: 'a-1', uid: 'uid-a' }));
    await s.create(nodeClaim({ name: 'b-1', uid: 'uid-b' }));
    await s.transition(a, 'Launched', { instanceId: 'i-0ccc' });
    expect((await s.getByInstanceId('i-0ccc'))?.name).toBe('a-1');
    expect(await s.getByInstanceId('i-0none')).toBeUndefined();
    expect((await s.list({ states: ['Pending'] })).map((c) => c.name)).toEqual(['b-1']);
    expect((await s.list()).map((c) => c.name).sort()).toEqual(['a-1', 'b-1']);
  });

  it('keeps the sweep cursor beside the claims, out of their listing, and clears it', async () => {
    const s = store();
    expect(await s.getSweepCursor()).toBeUndefined();
    const cursor = { node: 'ip-10-0-0-1', price: 0.192, rescheduleCost: 12.5, at: now };
    await s.putSweepCursor(cursor);
    expect(await s.getSweepCursor()).toEqual(cursor);
    await s.create(nodeClaim());
    expect(await s.list()).toHaveLength(1);
    await s.putSweepCursor(undefined);
    expect(await s.getSweepCursor()).toBeUndefined();
  });

  it('keeps unavailable offerings until they expire', async () => {
    const s = store();
    const offering = { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' as const, reason: 'ICE' };
    await s.markUnavailable({ ...offering, expiresAt: now + 60_000 });
    expect(await s.listUnavailable(now)).toEqual([expect.objectContaining(offering)]);
    expect(await s.listUnavailable(now + 61_000)).toEqual([]);
  });
});
