// Sends batches to the cluster's FIFO queue. The SDK's own retries (standard mode, 3 attempts) absorb blips; a
// longer outage surfaces as a rejected send and the flusher's backoff takes over, keeping the refs.
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { MessageSink } from './flusher';
import type { OutgoingMessage } from './messages';

export class SqsSink implements MessageSink {
  constructor(
    private readonly queueUrl: string,
    private readonly sqs: SQSClient = new SQSClient({}),
  ) {}

  async send(message: OutgoingMessage): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: message.body,
        MessageGroupId: message.groupId,
        MessageDeduplicationId: message.deduplicationId,
        MessageAttributes: { kind: { DataType: 'String', StringValue: message.kind } },
      }),
    );
  }
}
