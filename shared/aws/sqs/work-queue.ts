// The WorkQueue port on SQS: SendMessage to one queue, with the fields that queue type takes (deliveredMessage in
// shared/ports.ts, which the in-memory twin shared/sim/sqs/work-queue.ts sends too).
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { deliveredMessage, type QueueMessage, type WorkQueue } from '../../ports';

export class SqsWorkQueue implements WorkQueue {
  private readonly fifo: boolean;

  constructor(
    private readonly client: SQSClient,
    private readonly url: string,
  ) {
    this.fifo = url.endsWith('.fifo');
  }

  async send(message: QueueMessage): Promise<void> {
    const { body, groupId, deduplicationId, delaySeconds } = deliveredMessage(message, this.fifo);
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.url,
        MessageBody: body,
        ...(groupId !== undefined ? { MessageGroupId: groupId } : {}),
        ...(deduplicationId !== undefined ? { MessageDeduplicationId: deduplicationId } : {}),
        ...(delaySeconds !== undefined ? { DelaySeconds: delaySeconds } : {}),
      }),
    );
  }
}
