// The sweep tick on moto_server's SQS, on a FIFO queue configured as the stack's events queue
// (stacks/constructs/queues.ts: content-based deduplication, per message group). Anyone who may send to that queue
// (the forwarder's identity) can predict a tick's scheduled time; a copy sent a few seconds early must not make the
// queue drop the Scheduler's real tick as its duplicate (docs/architecture.md, "Trust boundaries").
import { createHash, randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseControlMessage, sweepTemplate } from '../../shared/events';
import { type Emulator, emulator } from './emulator';

const CLUSTER = 'demo';
let aws: Emulator;
let queues = 0;

beforeAll(() => {
  aws = emulator();
});

async function eventsQueue(): Promise<string> {
  const out = await aws.sqs.send(
    new CreateQueueCommand({
      QueueName: `karpless-events${++queues}.fifo`,
      Attributes: {
        FifoQueue: 'true',
        ContentBasedDeduplication: 'true',
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
      },
    }),
  );
  return out.QueueUrl as string;
}

/** What EventBridge Scheduler puts in the target input: its context attributes, substituted per invocation. */
function schedulerInput(template: string, scheduledTime: string, executionId: string): string {
  return template
    .replaceAll('<aws.scheduler.scheduled-time>', scheduledTime)
    .replaceAll('<aws.scheduler.execution-id>', executionId);
}

/** The Scheduler's SQS target sends the input with the schedule's message group and no deduplication id. */
async function send(url: string, body: string, deduplicationId?: string): Promise<void> {
  await aws.sqs.send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: body,
      MessageGroupId: CLUSTER,
      ...(deduplicationId !== undefined && { MessageDeduplicationId: deduplicationId }),
    }),
  );
}

/** Receives and deletes until the queue is empty (a message in flight would hold its group). */
async function receiveAll(url: string): Promise<Message[]> {
  const got: Message[] = [];
  for (;;) {
    const out = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
    if (!out.Messages?.length) return got;
    got.push(...out.Messages);
    for (const m of out.Messages) {
      await aws.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
    }
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the sweep tick on the emulator', () => {
  it('is delivered although a forged copy of it was sent first, however the copy is made', async () => {
    const url = await eventsQueue();
    const template = sweepTemplate(CLUSTER);
    const start = Date.parse('2026-11-21T21:00:00Z');
    const ticks = 15;
    const real: string[] = [];
    for (let i = 0; i < ticks; i++) {
      const at = new Date(start + i * 60_000).toISOString().replace('.000Z', 'Z');
      // The forger knows the template and the time, not the execution id the Scheduler will choose.
      const guessed = schedulerInput(template, at, randomUUID());
      const forgeries = [
        () => send(url, JSON.stringify({ v: 1, cluster: CLUSTER, kind: 'Sweep', at })),
        () => send(url, guessed),
        () => send(url, `forged ${i}`, sha256(guessed)),
      ];
      await forgeries[i % forgeries.length]?.();
      const body = schedulerInput(template, at, randomUUID());
      real.push(body);
      await send(url, body);
    }
    const delivered = (await receiveAll(url)).map((m) => m.Body);
    // A forgery identical to its tick would hide the tick's loss from a search by body, so count as well.
    expect(delivered.length).toBe(2 * ticks);
    expect(real.filter((body) => !delivered.includes(body))).toEqual([]);
    expect(parseControlMessage(real[0] as string)).toMatchObject({ kind: 'Sweep', cluster: CLUSTER });
  });
});
