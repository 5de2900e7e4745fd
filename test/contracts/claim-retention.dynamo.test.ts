import { afterAll, beforeAll } from 'vitest';
import { type LocalDynamo, startLocalDynamo } from '../../shared/aws/dynamo/local';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { describeClaimRetentionContract } from './claim-retention.contract';

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
