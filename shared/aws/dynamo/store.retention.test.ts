import { afterAll, beforeAll } from 'vitest';
import { describeClaimRetentionContract } from '../../../test/contracts/claim-retention.contract';
import { type LocalDynamo, startLocalDynamo } from './local';
import { DynamoNodeClaimStore } from './store';

let db: LocalDynamo;
let cluster = 0;

beforeAll(async () => {
  db = await startLocalDynamo();
});
afterAll(async () => {
  await db.stop();
});

describeClaimRetentionContract('DynamoDB on dynalite', {
  // A fresh partition per store keeps the cases independent on one table.
  makeStore: (clock) =>
    new DynamoNodeClaimStore({ tableName: db.tableName, cluster: `retention-${++cluster}`, client: db.client, clock }),
});
