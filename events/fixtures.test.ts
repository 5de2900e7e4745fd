import { describe, expect, it } from 'vitest';
import { ValidationError } from '../shared/errors';
import { parseControlMessage, parseGcTick, parseInterruptionEvent } from '../shared/events';
import { FIXTURES, fixture, fixtureFiles, readFixture, sqsEvent } from './index';

function parse(file: string): unknown {
  const f = fixture(file);
  const body = readFixture(file);
  if (f.input === 'control') return parseControlMessage(body, { source: `events/${file}` });
  if (f.input === 'gc') return parseGcTick(body, { source: `events/${file}` });
  return parseInterruptionEvent(body, { source: `events/${file}` });
}

describe('events/ fixtures', () => {
  it('catalogues every fixture file on disk, and only those', () => {
    expect([...fixtureFiles()].sort()).toEqual(FIXTURES.map((f) => f.file).sort());
  });

  it('covers every forwarder kind, the ticks, every EventBridge kind and every instance state', () => {
    const valid = FIXTURES.filter((f) => f.expect === 'valid').map(
      (f) => parse(f.file) as { kind: string; state?: string },
    );
    const kinds = new Set(valid.map((v) => v.kind));
    const controlKinds = [
      'PodsPending',
      'NodeChanged',
      'NodePoolChanged',
      'NodeClaimDeleted',
      'Sweep',
      'Terminate',
      'DisruptionDue',
    ];
    for (const k of [...controlKinds, 'GarbageCollect']) {
      expect(kinds).toContain(k);
    }
    const interruptionKinds = [
      'SpotInterruption',
      'CapacityReservationInterruption',
      'RebalanceRecommendation',
      'StateChange',
      'ScheduledChange',
    ];
    for (const k of interruptionKinds) {
      expect(kinds).toContain(k);
    }
    const states = valid.filter((v) => v.kind === 'StateChange').map((v) => v.state);
    expect(states.sort()).toEqual(['pending', 'running', 'shutting-down', 'stopped', 'stopping', 'terminated']);
  });

  for (const f of FIXTURES) {
    it(`${f.file} is ${f.expect}`, () => {
      if (f.expect === 'invalid') {
        expect(() => parse(f.file)).toThrow(ValidationError);
        expect(() => parse(f.file)).toThrow(`events/${f.file}: `);
        return;
      }
      const result = parse(f.file) as Record<string, unknown>;
      if (f.expect === 'ignored') expect(result.ignored).toEqual(expect.any(String));
      else expect(result.ignored).toBeUndefined();
    });
  }
});

describe('sqsEvent', () => {
  it('wraps bodies as FIFO records grouped by cluster', () => {
    const body = readFixture('pods-pending.json');
    const event = sqsEvent([body, readFixture('malformed-bad-json.txt')]);
    expect(event.Records).toHaveLength(2);
    const [first, second] = event.Records;
    expect(first?.body).toBe(body);
    expect(first?.attributes.MessageGroupId).toBe('demo');
    expect(first?.eventSource).toBe('aws:sqs');
    expect(first?.messageId).not.toBe(second?.messageId);
    expect(second?.attributes.MessageGroupId).toBe('default');
  });

  it('makes standard-queue records without FIFO attributes, with the receive count asked for', () => {
    const event = sqsEvent([readFixture('spot-interruption.json')], {
      queueArn: 'arn:aws:sqs:eu-west-1:111122223333:karpless-demo-interruption',
      receiveCount: 3,
    });
    const record = event.Records[0];
    expect(record?.attributes.MessageGroupId).toBeUndefined();
    expect(record?.attributes.ApproximateReceiveCount).toBe('3');
    expect(record?.awsRegion).toBe('eu-west-1');
  });
});
