// A local DynamoDB (dynalite) with the stack's table, for the CLI commands that read a deployed cluster's table.
// The commands build their own client from the SDK's default chain, as on a laptop, so the credentials come from the
// environment, set here and restored by stop().
import { type LocalDynamo, startLocalDynamo } from '../shared/aws/dynamo/local';
import { DynamoNodeClaimStore } from '../shared/aws/dynamo/store';

export interface LocalTable {
  db: LocalDynamo;
  /** The writer the functions would use, for seeding a cluster's partition. */
  store(cluster: string): DynamoNodeClaimStore;
  /** The --table arguments for a cluster (and table) of this local DynamoDB. */
  args(cluster: string, table?: string): string[];
  stop(): Promise<void>;
}

export async function startLocalTable(): Promise<LocalTable> {
  const db = await startLocalDynamo();
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  const restore = (key: string, value: string | undefined) => {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  };
  return {
    db,
    store: (cluster) => new DynamoNodeClaimStore({ tableName: db.tableName, cluster, client: db.client }),
    args: (cluster, table = db.tableName) => [
      ...['--table', table, '--cluster', cluster],
      ...['--region', 'us-east-1', '--endpoint-url', db.endpoint],
    ],
    stop: async () => {
      restore('AWS_ACCESS_KEY_ID', saved.id);
      restore('AWS_SECRET_ACCESS_KEY', saved.secret);
      await db.stop();
    },
  };
}
