// The three queues of a cluster, each with a DLQ: the FIFO cluster-events queue (forwarder hints and the sweep,
// one message group per cluster), the interruption queue fed by EventBridge, and the termination queue on which
// drains re-queue themselves with a delay (FIFO queues cannot delay single messages). All encrypted, TLS-only.
import { Duration, Validations } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface ControlQueuesProps {
  encryption: 'sqs-managed' | 'kms';
  /** Visibility timeouts must cover the consumer's timeout; the stack passes each consumer's. */
  visibility: { events: Duration; interruption: Duration; termination: Duration };
}

export const MAX_RECEIVE_COUNT = { events: 5, interruption: 3, termination: 10 } as const;

export class ControlQueues extends Construct {
  readonly events: sqs.Queue;
  readonly eventsDlq: sqs.Queue;
  readonly interruption: sqs.Queue;
  readonly interruptionDlq: sqs.Queue;
  readonly termination: sqs.Queue;
  readonly terminationDlq: sqs.Queue;
  /** Failed scheduled work: ticks the Scheduler could not deliver, and GC invocations that failed. */
  readonly scheduledFailures: sqs.Queue;
  readonly key?: kms.Key;

  constructor(scope: Construct, id: string, props: ControlQueuesProps) {
    super(scope, id);
    if (props.encryption === 'kms') {
      this.key = new kms.Key(this, 'Key', {
        description: 'Encrypts the Karpless control-plane queues',
        enableKeyRotation: true,
      });
    }
    const encryption = this.key
      ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: this.key }
      : { encryption: sqs.QueueEncryption.SQS_MANAGED };
    const common = { ...encryption, enforceSSL: true };
    const dlq = (name: string, fifo: boolean) => {
      const queue = new sqs.Queue(this, name, {
        ...common,
        fifo: fifo || undefined,
        retentionPeriod: Duration.days(14),
      });
      Validations.of(queue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself a dead-letter queue; its depth alarms instead of redriving further.',
      });
      return queue;
    };

    // Each consumer's queue: its visibility timeout and receive count are the consumer's, its DLQ its own.
    const consumed = (
      id: string,
      consumer: keyof typeof MAX_RECEIVE_COUNT,
      deadLetters: sqs.Queue,
      retentionPeriod: Duration,
      extra: sqs.QueueProps = {},
    ) =>
      new sqs.Queue(this, id, {
        ...common,
        ...extra,
        visibilityTimeout: props.visibility[consumer],
        retentionPeriod,
        deadLetterQueue: { queue: deadLetters, maxReceiveCount: MAX_RECEIVE_COUNT[consumer] },
      });

    this.eventsDlq = dlq('EventsDlq', true);
    this.events = consumed('Events', 'events', this.eventsDlq, Duration.days(1), {
      fifo: true,
      // EventBridge Scheduler can send to a FIFO queue only when content-based deduplication is on. The forwarder
      // sets an explicit MessageDeduplicationId, which takes precedence, and each sweep carries its scheduled time.
      contentBasedDeduplication: true,
      // High-throughput FIFO: deduplication and throughput are per message group (= per cluster).
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
    });

    this.interruptionDlq = dlq('InterruptionDlq', false);
    // A spot warning is stale after its two minutes; Health changes arrive days ahead and are re-sent on update.
    this.interruption = consumed('Interruption', 'interruption', this.interruptionDlq, Duration.hours(1));

    this.scheduledFailures = dlq('ScheduledFailures', false);
    this.terminationDlq = dlq('TerminationDlq', false);
    this.termination = consumed('Termination', 'termination', this.terminationDlq, Duration.days(4));
  }

  get all(): { name: string; queue: sqs.Queue; dlq: sqs.Queue }[] {
    return [
      { name: 'events', queue: this.events, dlq: this.eventsDlq },
      { name: 'interruption', queue: this.interruption, dlq: this.interruptionDlq },
      { name: 'termination', queue: this.termination, dlq: this.terminationDlq },
    ];
  }
}
