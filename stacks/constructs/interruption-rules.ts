// EventBridge rules for the four EC2/Health event kinds, into the interruption queue. The patterns come from
// shared/events, the module whose validator reads these events, so a rule cannot deliver what the parser rejects.
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INTERRUPTION_EVENT_PATTERNS } from '../../shared/events/eventbridge';

export class InterruptionRules extends Construct {
  readonly rules: events.Rule[] = [];

  constructor(scope: Construct, id: string, queue: sqs.IQueue) {
    super(scope, id);
    const descriptions: Record<keyof typeof INTERRUPTION_EVENT_PATTERNS, string> = {
      spotInterruption: 'EC2 spot interruption warnings',
      rebalanceRecommendation: 'EC2 instance rebalance recommendations',
      stateChange: 'EC2 instance state changes',
      scheduledChange: 'AWS Health scheduled changes for EC2',
    };
    for (const [key, pattern] of Object.entries(INTERRUPTION_EVENT_PATTERNS)) {
      const rule = new events.Rule(this, key, {
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
      rule.addTarget(new targets.SqsQueue(queue));
      this.rules.push(rule);
    }
  }
}
