// What a Lambda SQS event source mapping does, for running the handlers outside Lambda (`karpless dev
// --aws-endpoint`, the emulator tests): receive a batch, hand it to the handler as an SQSEvent with the record
// attributes Lambda sets, delete what succeeded, and leave the reported failures (or the whole batch when the
// handler throws) to become visible again, so SQS counts the receive towards the queue's maxReceiveCount.
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type SqsBatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined | unknown>;

export interface PollOutcome {
  received: number;
  failed: number;
  error?: unknown;
}

export class SqsEventSource {
  private arn?: string;

  constructor(
    private readonly client: SQSClient,
    readonly queueUrl: string,
    private readonly handler: SqsBatchHandler,
    private readonly o: { batchSize?: number; region?: string } = {},
  ) {}

  /** One receive (no long poll) and one invocation; nothing received means no invocation. */
  async pollOnce(): Promise<PollOutcome> {
    const out = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: this.o.batchSize ?? 10,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 0,
      }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) return { received: 0, failed: 0 };
    const arn = await this.queueArn();
    const records = messages.map((m) => toRecord(m, arn, this.o.region ?? arn.split(':')[3] ?? ''));
    let failedIds: Set<string>;
    let error: unknown;
    try {
      const response = (await this.handler({ Records: records })) as SQSBatchResponse | undefined;
      failedIds = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (err) {
      error = err;
      failedIds = new Set(records.map((r) => r.messageId));
    }
    const done = messages.filter((m) => !failedIds.has(m.MessageId ?? ''));
    if (done.length > 0) {
      await this.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle as string })),
        }),
      );
    }
    return { received: messages.length, failed: failedIds.size, ...(error !== undefined ? { error } : {}) };
  }

  private async queueArn(): Promise<string> {
    if (!this.arn) {
      const out = await this.client.send(
        new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['QueueArn'] }),
      );
      this.arn = out.Attributes?.QueueArn ?? this.queueUrl;
    }
    return this.arn;
  }
}

function toRecord(m: Message, arn: string, region: string): SQSRecord {
  const a = m.Attributes ?? {};
  const attributes: SQSRecord['attributes'] = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
    SentTimestamp: a.SentTimestamp ?? String(Date.now()),
    SenderId: a.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? a.SentTimestamp ?? String(Date.now()),
    ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
    ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
    ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
  };
  const messageAttributes: SQSRecord['messageAttributes'] = {};
  for (const [k, v] of Object.entries(m.MessageAttributes ?? {})) {
    messageAttributes[k] = {
      dataType: v.DataType ?? 'String',
      ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
    };
  }
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes,
    messageAttributes,
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: region,
  };
}
