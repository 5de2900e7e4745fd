// `karpless explain NAME --table T --cluster C`: decision records read from a deployed cluster's DynamoDB table (the
// stack's TableName output), through the same DynamoNodeClaimStore the functions write with. A node name, an
// instance id or a providerID is resolved to its claim through the claims `list` returns: every claim in flight or
// failed, and terminated ones for 2 days (TERMINATED_CLAIM_RETENTION_MS); the decision records stay 30 days.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import type { DecisionSource } from './explain';

export interface TableOptions {
  table: string;
  cluster: string;
  region?: string;
  /** Another DynamoDB endpoint (DynamoDB Local, dynalite). */
  endpoint?: string;
}

/** Whether the claim is the one behind a node name, an EC2 instance id or a providerID. */
export function claimMatches(claim: NodeClaim, name: string): boolean {
  return claim.nodeName === name || claim.instanceId === name || claim.providerID === name;
}

export function tableSource(o: TableOptions): DecisionSource {
  const raw = new DynamoDBClient({
    ...(o.region ? { region: o.region } : {}),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
  });
  const client = DynamoDBDocumentClient.from(raw);
  const store = new DynamoNodeClaimStore({ tableName: o.table, cluster: o.cluster, client });
  return {
    listDecisions: (claim) => store.listDecisions(claim),
    claimOfNode: async (name) => (await store.list()).find((c) => claimMatches(c, name))?.name,
  };
}
