import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { sqsEvent } from '../../events/sqs';
import { parseControlMessage } from '../../shared/events';
import type { ControlMessage } from '../../shared/messages';
import { fakeContext } from './fake-context';
import { sqsPartialBatch } from './sqs-partial-batch';

const msg = (cluster: string, kind = 'Sweep') => JSON.stringify({ v: 1, cluster, kind, at: '2026-11-21T21:00:00Z' });

function recorder() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const counts: Record<string, number> = {};
  return {
    lines,
    counts,
    log: {
      info: (message: string, fields?: Record<string, unknown>) => lines.push({ level: 'info', message, fields }),
      warn: (message: string, fields?: Record<string, unknown>) => lines.push({ level: 'warn', message, fields }),
      error: (message: string, fields?: Record<string, unknown>) => lines.push({ level: 'error', message, fields }),
    },
    count: (name: string, value: number) => {
      counts[name] = (counts[name] ?? 0) + value;
    },
  };
}

describe('sqsPartialBatch', () => {
  it('reports only the record that throws; the others are handled', async () => {
    const seen: string[] = [];
    const rec = recorder();
    const handler = sqsPartialBatch<ControlMessage>(
      async (m) => {
        if (m.cluster === 'b') throw new Error('boom');
        seen.push(m.cluster);
      },
      { parse: parseControlMessage, log: rec.log, count: rec.count },
    );
    const event = sqsEvent([msg('a'), msg('b'), msg('c')], { queueArn: 'arn:aws:sqs:us-west-2:1:q' });
    const result = await handler(event, fakeContext());
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: event.Records[1]?.messageId }]);
    expect(seen).toEqual(['a', 'c']);
    expect(rec.lines.find((l) => l.level === 'error')?.fields?.error).toMatchObject({ message: 'boom' });
    expect(rec.counts.BatchItemFailures).toBe(1);
  });

  it('logs a poison record with the field path and reports it, without calling the handler', async () => {
    const rec = recorder();
    let calls = 0;
    const handler = sqsPartialBatch(
      async () => {
        calls++;
      },
      { parse: parseControlMessage, log: rec.log, count: rec.count },
    );
    const event = sqsEvent([JSON.stringify({ v: 1, cluster: 'a', kind: 'Nope', at: 'x' }), msg('a')], {
      queueArn: 'arn:aws:sqs:us-west-2:1:events',
      receiveCount: 4,
    });
    const result = await handler(event, fakeContext());
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([event.Records[0]?.messageId]);
    expect(calls).toBe(1);
    const line = rec.lines.find((l) => l.message.startsWith('poison message'));
    expect(line?.fields).toMatchObject({ receiveCount: 4 });
    expect((line!.fields!.problems as string[])[0]).toMatch(/^SQS message .* \(events\): kind: unknown kind "Nope"/);
    expect(rec.counts.PoisonMessages).toBe(1);
  });

  it('dead-letters a poison record with the reason and acknowledges it; the rest of its group proceeds', async () => {
    const rec = recorder();
    const seen: string[] = [];
    const dead: { messageId: string; reason: string }[] = [];
    const handler = sqsPartialBatch<ControlMessage>(
      async (m) => {
        seen.push(`${m.cluster}:${m.kind}`);
      },
      {
        parse: parseControlMessage,
        log: rec.log,
        count: rec.count,
        deadLetter: async (record, reason) => {
          dead.push({ messageId: record.messageId, reason });
        },
      },
    );
    const event = sqsEvent([msg('a'), JSON.stringify({ v: 1, cluster: 'a', kind: 'Nope', at: 'x' }), msg('a')], {
      queueArn: 'arn:aws:sqs:us-west-2:1:events.fifo',
    });
    expect(event.Records[1]?.attributes.MessageGroupId).toBe('a');
    const result = await handler(event, fakeContext());
    expect(result.batchItemFailures).toEqual([]);
    expect(seen).toEqual(['a:Sweep', 'a:Sweep']);
    expect(dead).toHaveLength(1);
    expect(dead[0]?.messageId).toBe(event.Records[1]?.messageId);
    expect(dead[0]?.reason).toMatch(/^SQS message .* \(events\.fifo\): kind: unknown kind "Nope"/);
    expect(rec.counts.PoisonMessages).toBe(1);
    expect(rec.counts.BatchItemFailures).toBeUndefined();
    expect(rec.lines.find((l) => l.message.startsWith('poison message'))?.message).toMatch(/sent to the DLQ/);
  });

  it('reports a poison record when the dead-letter send fails, so SQS redrives it (never lost)', async () => {
    const rec = recorder();
    const seen: string[] = [];
    const handler = sqsPartialBatch<ControlMessage>(
      async (m) => {
        seen.push(`${m.cluster}:${m.kind}`);
      },
      {
        parse: parseControlMessage,
        log: rec.log,
        deadLetter: async () => {
          throw new Error('AccessDenied');
        },
      },
    );
    const event = sqsEvent([JSON.stringify({ v: 1, cluster: 'a', kind: 'Nope', at: 'x' }), msg('a'), msg('b')]);
    const result = await handler(event, fakeContext());
    // Reported like any failure: FIFO order holds, so the rest of group a waits behind it.
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      event.Records[0]?.messageId,
      event.Records[1]?.messageId,
    ]);
    expect(seen).toEqual(['b:Sweep']);
    const line = rec.lines.find((l) => l.message.startsWith('poison message'));
    expect(line?.message).toMatch(/could not be sent to the DLQ/);
    expect(line?.fields?.error).toMatchObject({ message: 'AccessDenied' });
  });

  it('does not dead-letter a record whose handler fails for another reason: it is retried in order', async () => {
    let deadLettered = 0;
    const seen: string[] = [];
    const handler = sqsPartialBatch<ControlMessage>(
      async (m, info) => {
        if (info.record.body.includes('"PodsPending"')) throw new Error('ThrottlingException');
        seen.push(`${m.cluster}:${m.kind}`);
      },
      {
        parse: parseControlMessage,
        deadLetter: async () => {
          deadLettered++;
        },
      },
    );
    const event = sqsEvent([
      JSON.stringify({ v: 1, cluster: 'a', kind: 'PodsPending', at: '2026-11-21T21:00:00Z', refs: [] }),
      msg('a'),
      msg('b'),
    ]);
    const result = await handler(event, fakeContext());
    expect(deadLettered).toBe(0);
    expect(seen).toEqual(['b:Sweep']);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      event.Records[0]?.messageId,
      event.Records[1]?.messageId,
    ]);
  });

  it('keeps FIFO order: after a failure, later records of the same group are returned unprocessed', async () => {
    const seen: string[] = [];
    const handler = sqsPartialBatch<ControlMessage>(
      async (m, info) => {
        if (info.record.body.includes('"PodsPending"')) throw new Error('retry me');
        seen.push(`${m.cluster}:${m.kind}`);
      },
      { parse: parseControlMessage },
    );
    const bodies = [
      msg('a'),
      JSON.stringify({ v: 1, cluster: 'a', kind: 'PodsPending', at: '2026-11-21T21:00:00Z', refs: [] }),
      msg('a'),
      msg('b'),
    ];
    const event = sqsEvent(bodies);
    const result = await handler(event, fakeContext());
    expect(seen).toEqual(['a:Sweep', 'b:Sweep']);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      event.Records[1]?.messageId,
      event.Records[2]?.messageId,
    ]);
  });

  it('returns the rest of the batch when the function is about to time out', async () => {
    let remaining = 30_000;
    const handler = sqsPartialBatch(
      async () => {
        remaining -= 20_000;
      },
      { parse: parseControlMessage, reserveMs: 15_000 },
    );
    const event = sqsEvent([msg('a'), msg('b'), msg('c')], { queueArn: 'arn:aws:sqs:us-west-2:1:q' });
    const result = await handler(
      event,
      fakeContext(() => remaining),
    );
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      event.Records[1]?.messageId,
      event.Records[2]?.messageId,
    ]);
  });

  it('runs under middy and returns an empty failure list for a clean batch', async () => {
    const handler = middy(sqsPartialBatch(async () => {}, { parse: parseControlMessage }));
    expect(await handler(sqsEvent([msg('a')]), fakeContext())).toEqual({ batchItemFailures: [] });
  });
});

describe('sqsPartialBatch on malformed envelopes', () => {
  const setup = () => {
    const rec = recorder();
    const seen: string[] = [];
    const dead: { id: string; reason: string }[] = [];
    const handler = sqsPartialBatch<ControlMessage>(
      async (m) => {
        seen.push(m.cluster);
      },
      {
        parse: parseControlMessage,
        log: rec.log,
        count: rec.count,
        deadLetter: async (record, reason) => {
          dead.push({ id: record.messageId, reason });
        },
      },
    );
    return { rec, seen, dead, handler };
  };

  it.each([
    ['{}', {}],
    ['null', null],
    ['an event without Records', { records: [] }],
    ['Records that is not a list', { Records: 'x' }],
  ])('processes nothing and throws nothing for %s', async (_name, event) => {
    const { rec, seen, handler } = setup();
    expect(await handler(event as never, fakeContext())).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual([]);
    expect(rec.lines.some((l) => l.level === 'error' && l.message.startsWith('not an SQS event'))).toBe(true);
    expect(rec.counts.PoisonMessages).toBe(1);
  });

  it('dead-letters a record without attributes or body at once and handles the rest of the batch', async () => {
    const { seen, dead, handler } = setup();
    const good = sqsEvent([msg('a'), msg('c')], { queueArn: 'arn:aws:sqs:us-west-2:1:q' }).Records;
    const { attributes: _dropped, ...noAttributes } = sqsEvent([msg('b')]).Records[0] as NonNullable<(typeof good)[0]>;
    const event = { Records: [good[0], noAttributes, null, good[1]] };
    expect(await handler(event as never, fakeContext())).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual(['a', 'c']);
    expect(dead.map((d) => d.reason)).toEqual([
      expect.stringMatching(/malformed SQS record: attributes is missing$/),
      expect.stringMatching(
        /malformed SQS record: messageId is missing, body is missing, eventSourceARN is missing, attributes is missing$/,
      ),
    ]);
  });
});
