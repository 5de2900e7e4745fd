// A test-only aspect that adapts the synthesized cluster stack to what moto_server's CloudFormation can create, for
// the smoke deploy in test/aws-emulator/cloudformation.test.ts. The product stack has no emulator mode: everything
// moto cannot model is changed here, and each change says why.
import { CfnResource, type IAspect, Stack } from 'aws-cdk-lib';
import { CfnKey } from 'aws-cdk-lib/aws-kms';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';

/** A handler body for the functions: the deploy checks creation, and moto cannot fetch CDK assets from S3. */
const STUB_CODE = 'exports.handler = async () => ({});';

export class MotoCompatibility implements IAspect {
  visit(node: IConstruct): void {
    if (node instanceof CfnFunction) {
      // The asset bucket of `cdk bootstrap` does not exist in the emulator; inline code needs none.
      node.code = { zipFile: STUB_CODE };
      return;
    }
    if (node instanceof CfnQueue && node.fifoQueue && Stack.of(node).resolve(node.queueName) === undefined) {
      // CloudFormation names an unnamed FIFO queue with the .fifo suffix SQS requires; moto's generated name lacks
      // it and SQS then refuses the queue. The stack's own name keeps it unique.
      node.addPropertyOverride('QueueName', `${Stack.of(node).stackName}-${node.node.scope?.node.id}.fifo`);
      return;
    }
    if (node instanceof CfnKey) {
      // moto's AWS::KMS::Key reads tags as TagKey/TagValue, not CloudFormation's Key/Value, and fails the stack.
      node.addPropertyDeletionOverride('Tags');
      return;
    }
    if (node instanceof CfnResource && node.cfnResourceType === 'AWS::DynamoDB::GlobalTable') {
      // moto has no AWS::DynamoDB::GlobalTable; a single-region global table is a Table with the same keys,
      // indexes, TTL and billing. Replicas (a per-region list) is the one property a Table does not take.
      node.addOverride('Type', 'AWS::DynamoDB::Table');
      node.addPropertyDeletionOverride('Replicas');
    }
  }
}
