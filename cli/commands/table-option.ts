// `--table TABLE --cluster NAME [--region R] [--endpoint-url URL]` for the commands that read a deployed cluster's
// DynamoDB table (the stack's TableName output) with the caller's AWS credentials: explain and nodeclaims. They read
// through the DynamoNodeClaimStore the functions write with, so what they show is what the control plane sees.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';

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

export function openTableStore(o: TableOptions & { table: string; cluster: string }): DynamoNodeClaimStore {
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
