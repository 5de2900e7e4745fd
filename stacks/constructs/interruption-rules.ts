// EventBridge rules for the five EC2/Health event kinds, into the interruption queue. The patterns come from
// shared/events, the module whose validator reads these events, so a rule cannot deliver what the parser rejects.
//
// The queue's policy (and, with KMS, the key's) lets EventBridge in only for these rules of this account
// (aws:SourceArn and aws:SourceAccount), in every encryption variant. The CDK's SqsQueue target drops the SourceArn
// condition on KMS-encrypted queues to avoid a dependency cycle (key policy → rule → queue → key); naming the rules
// and writing their ARNs as strings breaks the cycle instead, so no other rule or account can forge a spot warning.
import { Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INTERRUPTION_EVENT_PATTERNS } from '../../shared/events';

export interface InterruptionRulesProps {
  cluster: string;
  queue: sqs.IQueue;
  key?: kms.IKey;
}

export class InterruptionRules extends Construct {
  readonly rules: events.Rule[] = [];

  constructor(scope: Construct, id: string, props: InterruptionRulesProps) {
    super(scope, id);
    const descriptions: Record<keyof typeof INTERRUPTION_EVENT_PATTERNS, string> = {
      spotInterruption: 'EC2 spot interruption warnings',
      capacityReservationInterruption: 'EC2 interruptible capacity reservation interruption warnings',
      rebalanceRecommendation: 'EC2 instance rebalance recommendations',
      stateChange: 'EC2 instance state changes',
      scheduledChange: 'AWS Health scheduled changes for EC2',
    };
    const stack = Stack.of(this);
    const ruleArns: string[] = [];
    for (const [key, pattern] of Object.entries(INTERRUPTION_EVENT_PATTERNS)) {
      const ruleName = `karpless-${props.cluster}-${key}`;
      const rule = new events.Rule(this, key, {
        ruleName,
        description: `Karpless: ${descriptions[key as keyof typeof descriptions]} to the interruption queue`,
        eventPattern: {
          source: [...pattern.source],
          detailType: [...pattern.detailType],
          ...('detail' in pattern && {
            detail: {
              service: [...pattern.detail.service],
              eventTypeCategory: [...pattern.detail.eventTypeCategory],
            },
          }),
        },
      });
      // A bare target: the permissions are the conditioned statements below, not the target's own grant.
      rule.addTarget({ bind: () => ({ arn: props.queue.queueArn }) });
      ruleArns.push(stack.formatArn({ service: 'events', resource: 'rule', resourceName: ruleName }));
      this.rules.push(rule);
    }
    const principal = new iam.ServicePrincipal('events.amazonaws.com');
    const conditions = {
      ArnEquals: { 'aws:SourceArn': ruleArns },
      StringEquals: { 'aws:SourceAccount': stack.account },
    };
    props.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'EventBridgeRulesOfThisCluster',
        actions: ['sqs:SendMessage'],
        principals: [principal],
        resources: [props.queue.queueArn],
        conditions,
      }),
    );
    props.key?.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'EventBridgeRulesOfThisClusterEncrypt',
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        principals: [principal],
        resources: ['*'],
        conditions,
      }),
    );
  }
}
