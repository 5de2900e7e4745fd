// The single-table layout (docs/aws.md, The table), in one place: the store, the tests and the CDK stack all read the
// key and attribute names from here, so a rename cannot split them.

/** Partition and sort key attribute names. */
export const PK = 'PK';
export const SK = 'SK';
/** TTL attribute (epoch seconds), enabled on the table. DynamoDB deletes expired items only eventually (typically
 * within a few days), so every read of an item kind that expires also filters on it. */
export const TTL_ATTRIBUTE = 'expiresAt';
/** Sparse GSI: only NodeClaim items with an instance carry `instanceId`. */
export const INSTANCE_ID_INDEX = 'byInstanceId';
export const INSTANCE_ID_ATTRIBUTE = 'instanceId';
/** Item kind, so a scan or export can tell items apart without parsing SK. */
export const ENTITY_ATTRIBUTE = 'entity';
export const VERSION_ATTRIBUTE = 'version';

export const Entity = {
  NodeClaim: 'NodeClaim',
  Offering: 'UnavailableOffering',
  Decision: 'Decision',
  ClaimDecision: 'ClaimDecision',
  Prices: 'Prices',
  SweepCursor: 'SweepCursor',
} as const;

/** Decisions live 30 days. */
export const DECISION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Terminated NodeClaims live 2 days after termination (why that is safe: shared/api/nodeclaim.ts, where the
 * in-memory store reads it too); in-flight and Failed claims carry no TTL and never expire. */
export { TERMINATED_CLAIM_RETENTION_MS } from '../../api/nodeclaim';

export const keys = {
  cluster: (cluster: string) => `CLUSTER#${cluster}`,
  nodeClaim: (name: string) => `NODECLAIM#${name}`,
  nodeClaimPrefix: 'NODECLAIM#',
  /** A reserved offering is keyed by its reservation too (docs/aws.md, Capacity reservations). */
  offering: (instanceType: string, zone: string, capacityType: string, reservationId?: string) =>
    `OFFERING#${instanceType}#${zone}#${capacityType}${reservationId ? `#${reservationId}` : ''}`,
  offeringPrefix: 'OFFERING#',
  decision: (at: string, id: string) => `DECISION#${at}#${id}`,
  decisionPrefix: 'DECISION#',
  /** One copy of a decision per claim it names, so "decisions of a claim" is one Query on a key prefix. */
  claimDecision: (claim: string, at: string, id: string) => `CLAIMDECISION#${claim}#${at}#${id}`,
  claimDecisionPrefix: (claim: string) => `CLAIMDECISION#${claim}#`,
  prices: 'PRICES#current',
  /** Where the last disruption sweep stopped on its deadline (shared/api/sweep-cursor.ts). */
  sweepCursor: 'SWEEP#cursor',
} as const;

export interface TableDefinition {
  partitionKey: { name: string; type: 'S' };
  sortKey: { name: string; type: 'S' };
  billingMode: 'PAY_PER_REQUEST';
  timeToLiveAttribute: string;
  globalSecondaryIndexes: {
    indexName: string;
    partitionKey: { name: string; type: 'S' };
    projection: 'ALL';
  }[];
}

/** The table as the CDK stack and the dynalite tests create it. */
export function tableDefinition(): TableDefinition {
  return {
    partitionKey: { name: PK, type: 'S' },
    sortKey: { name: SK, type: 'S' },
    billingMode: 'PAY_PER_REQUEST',
    timeToLiveAttribute: TTL_ATTRIBUTE,
    globalSecondaryIndexes: [
      { indexName: INSTANCE_ID_INDEX, partitionKey: { name: INSTANCE_ID_ATTRIBUTE, type: 'S' }, projection: 'ALL' },
    ],
  };
}

/** The same definition as a DynamoDB CreateTable input (for dynalite and for scripts). */
export function createTableInput(tableName: string) {
  const def = tableDefinition();
  const attrs = new Map<string, 'S'>();
  attrs.set(def.partitionKey.name, 'S');
  attrs.set(def.sortKey.name, 'S');
  for (const gsi of def.globalSecondaryIndexes) attrs.set(gsi.partitionKey.name, gsi.partitionKey.type);
  return {
    TableName: tableName,
    BillingMode: def.billingMode,
    AttributeDefinitions: [...attrs].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: [
      { AttributeName: def.partitionKey.name, KeyType: 'HASH' as const },
      { AttributeName: def.sortKey.name, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: def.globalSecondaryIndexes.map((g) => ({
      IndexName: g.indexName,
      KeySchema: [{ AttributeName: g.partitionKey.name, KeyType: 'HASH' as const }],
      Projection: { ProjectionType: g.projection },
    })),
  };
}
