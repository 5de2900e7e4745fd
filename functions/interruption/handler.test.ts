import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFixture } from '../../events';
import { sqsEvent } from '../../events/sqs';
import { makePod } from '../../testkit/bed';
import { captureOutput, functionBed, portsOf } from '../../testkit/function-bed';
import { fakeContext } from '../middleware/fake-context';
import { createHandler } from './handler';

let lines: () => Record<string, unknown>[];
beforeEach(() => {
  lines = captureOutput();
});
afterEach(() => vi.restoreAllMocks());

const QUEUE = 'arn:aws:sqs:us-west-2:111122223333:karpless-demo-interruption';
const FIXTURE_INSTANCE = 'i-0a1b2c3d4e5f60718';

async function running() {
  const { t, observability } = functionBed('interruption');
  const handler = createHandler(() => portsOf(t), observability);
  t.cluster.addPod(makePod('web-0'));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.instanceId) throw new Error('no claim');
  return {
    t,
    handler,
    claim,
    body: (file: string) => readFixture(file).replaceAll(FIXTURE_INSTANCE, claim.instanceId ?? ''),
  };
}

describe('interruption handler', () => {
  it('drains and replaces on a spot interruption warning', async () => {
    const { t, handler, claim, body } = await running();
    const out = await handler(sqsEvent([body('spot-interruption.json')], { queueArn: QUEUE }), fakeContext());
    expect(out).toEqual({ batchItemFailures: [] });
    expect((await t.store.get(claim.name))?.state).toBe('Draining');
    expect(await t.store.list({ states: ['Launched'] })).toHaveLength(1);
  });

  it('drops unknown instances and other event kinds, and sends malformed events toward the DLQ', async () => {
    const { t, handler } = await running();
    const writes = t.store.writes.length;
    const event = sqsEvent(
      [
        readFixture('spot-interruption.json'),
        readFixture('health-other-service.json'),
        readFixture('malformed-spot-missing-instance-id.json'),
      ],
      { queueArn: QUEUE },
    );
    const out = await handler(event, fakeContext());
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: event.Records[2]?.messageId }]);
    expect(t.store.writes.length).toBe(writes);
    const poison = lines().find((l) => String(l.message).startsWith('poison message'));
    expect(JSON.stringify(poison?.problems)).toContain('instance-id');
  });

  it('terminates and re-plans on a state change to stopped', async () => {
    const { t, handler, claim, body } = await running();
    expect(
      (await handler(sqsEvent([body('state-change-stopped.json')], { queueArn: QUEUE }), fakeContext()))
        .batchItemFailures,
    ).toEqual([]);
    expect((await t.store.get(claim.name))?.disruption?.cause).toBe('Interrupted');
  });
});
