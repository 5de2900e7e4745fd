// `--table TABLE --cluster NAME [--region R] [--endpoint-url URL]` for the commands that read a deployed cluster's
// DynamoDB table (the stack's TableName output) with the caller's AWS credentials: explain and nodeclaims. They read
// through the DynamoNodeClaimStore the functions write with, so what they show is what the control plane sees.
import type { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';

export interface TableOptions {
  table?: string;
  cluster?: string;
  region?: string;
  /** Another DynamoDB endpoint (DynamoDB Local, dynalite). */
  endpointUrl?: string;
}

/** Why the options cannot name a table, or undefined when they can. */
export function tableOptionsProblem(o: TableOptions): string | undefined {
  if (!!o.table !== !!o.cluster) return '--table and --cluster go together';
  return undefined;
}

/** Loads the AWS SDK and the store on first use: they are most of the start-up of an `explain` or `nodeclaims` run,
 * and `--store` and `--from-sim` never touch them. */
export async function openTableStore(
  o: TableOptions & { table: string; cluster: string },
): Promise<DynamoNodeClaimStore> {
  const [{ DynamoDBClient }, { DynamoDBDocumentClient }, { DynamoNodeClaimStore }] = await Promise.all([
    import('@aws-sdk/client-dynamodb'),
    import('@aws-sdk/lib-dynamodb'),
    import('../../shared/aws/dynamo/store'),
  ]);
  const raw = new DynamoDBClient({
    ...(o.region ? { region: o.region } : {}),
    ...(o.endpointUrl ? { endpoint: o.endpointUrl } : {}),
  });
  return new DynamoNodeClaimStore({
    tableName: o.table,
    cluster: o.cluster,
    client: DynamoDBDocumentClient.from(raw),
  });
}
