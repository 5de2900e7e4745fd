// The cluster's single DynamoDB table (docs/aws.md, The table), built from the key and attribute names in
// shared/aws/dynamo/schema.ts so the store and the stack cannot disagree.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { keys, tableDefinition } from '../../shared/aws/dynamo/schema';

export class StateTable extends Construct {
  readonly table: dynamodb.TableV2;
  readonly instanceIdIndex: string;
  /** For the people who run `karpless nodeclaims` and `karpless explain --table`: Query on this table, nothing else. */
  readonly readerPolicy: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, cluster: string) {
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
    this.readerPolicy = new iam.ManagedPolicy(this, 'ReaderPolicy', {
      description: 'Read NodeClaims and decision records of this Karpless cluster (karpless nodeclaims, explain)',
      statements: [
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: [this.table.tableArn],
          // As for the functions (stacks/permissions.ts): only this cluster's partition.
          conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [keys.cluster(cluster)] } },
        }),
      ],
    });
  }
}
