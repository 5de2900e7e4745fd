// The cluster's single DynamoDB table (ARCHITECTURE.md §3), built from the key and attribute names in
// shared/aws/dynamo/schema.ts so the store and the stack cannot disagree.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../shared/aws/dynamo/schema';

export class StateTable extends Construct {
  readonly table: dynamodb.TableV2;
  readonly instanceIdIndex: string;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const def = tableDefinition();
    const attr = (a: { name: string; type: 'S' }) => ({ name: a.name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: attr(def.partitionKey),
      sortKey: attr(def.sortKey),
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: def.timeToLiveAttribute,
      globalSecondaryIndexes: def.globalSecondaryIndexes.map((g) => ({
        indexName: g.indexName,
        partitionKey: attr(g.partitionKey),
        projectionType: dynamodb.ProjectionType.ALL,
      })),
      // NodeClaims name live instances: deleting the stack must not orphan them silently.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.instanceIdIndex = def.globalSecondaryIndexes[0]?.indexName ?? '';
  }
}
