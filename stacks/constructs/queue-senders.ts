// Who may write to a queue, written on the queue itself: a Deny for every principal but the named roles. IAM already
// grants SendMessage only to those roles; the queue policy also holds against any other identity in the account that
// an admin grants sqs:* (docs/architecture.md, "Trust boundaries").
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

export function onlySenders(queue: sqs.IQueue, sid: string, roles: readonly iam.IRole[]): void {
  queue.addToResourcePolicy(
    new iam.PolicyStatement({
      sid,
      effect: iam.Effect.DENY,
      actions: ['sqs:SendMessage'],
      principals: [new iam.AnyPrincipal()],
      resources: [queue.queueArn],
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': roles.map((r) => r.roleArn) } },
    }),
  );
}
