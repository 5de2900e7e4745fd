import { describe, expect, it } from 'vitest';
import { validationProblems } from '../../testkit/validation';
import { isIgnored, parseInterruptionEvent } from './interruption';

const IID = 'i-0a1b2c3d4e5f60718';
function event(detailType: string, detail: unknown, source = 'aws.ec2') {
  return {
    version: '0',
    id: 'evt-1',
    'detail-type': detailType,
    source,
    account: '111122223333',
    time: '2026-11-21T21:00:00Z',
    region: 'us-west-2',
    resources: [],
    detail,
  };
}
const parse = (value: unknown) => parseInterruptionEvent(JSON.stringify(value), { source: 'evt' });
const problems = (value: unknown): string[] => validationProblems(() => parse(value));

describe('parseInterruptionEvent', () => {
  it('turns a spot warning into a signal with a two-minute deadline', () => {
    expect(
      parse(event('EC2 Spot Instance Interruption Warning', { 'instance-id': IID, 'instance-action': 'stop' })),
    ).toEqual({
      kind: 'SpotInterruption',
      instanceIds: [IID],
      deadline: '2026-11-21T21:02:00.000Z',
      eventId: 'evt-1',
      at: '2026-11-21T21:00:00.000Z',
    });
  });

  it('reads rebalance recommendations and every state change', () => {
    expect(parse(event('EC2 Instance Rebalance Recommendation', { 'instance-id': IID }))).toMatchObject({
      kind: 'RebalanceRecommendation',
      instanceIds: [IID],
    });
    for (const state of ['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated']) {
      expect(parse(event('EC2 Instance State-change Notification', { 'instance-id': IID, state }))).toMatchObject({
        kind: 'StateChange',
        state,
      });
    }
  });

  it('reads an EC2 scheduled change: instances only, deadline from the RFC 1123 start time', () => {
    const signal = parse(
      event(
        'AWS Health Event',
        {
          service: 'EC2',
          eventTypeCategory: 'scheduledChange',
          startTime: 'Sun, 29 Nov 2026 09:00:00 GMT',
          affectedEntities: [
            { entityValue: IID },
            { entityValue: 'h-0123456789abcdef0' },
            { entityValue: 'i-01234567' },
          ],
        },
        'aws.health',
      ),
    );
    expect(signal).toMatchObject({
      kind: 'ScheduledChange',
      instanceIds: [IID, 'i-01234567'],
      deadline: '2026-11-29T09:00:00.000Z',
    });
  });

  it('ignores events it does not act on, saying why', () => {
    const other = parse(
      event('AWS Health Event', { service: 'RDS', eventTypeCategory: 'scheduledChange' }, 'aws.health'),
    );
    expect(isIgnored(other) && other.ignored).toMatch(/service RDS/);
    const issue = parse(event('AWS Health Event', { service: 'EC2', eventTypeCategory: 'issue' }, 'aws.health'));
    expect(isIgnored(issue)).toBe(true);
    const launch = parse(event('EC2 Instance Launch Successful', {}, 'aws.autoscaling'));
    expect(isIgnored(launch) && launch.ignored).toBe(
      'unsupported event aws.autoscaling "EC2 Instance Launch Successful"',
    );
    const noInstance = parse(
      event(
        'AWS Health Event',
        { service: 'EC2', eventTypeCategory: 'scheduledChange', affectedEntities: [{ entityValue: 'h-1' }] },
        'aws.health',
      ),
    );
    expect(isIgnored(noInstance)).toBe(true);
  });

  it('names each bad field', () => {
    expect(
      problems(
        event('EC2 Spot Instance Interruption Warning', { 'instance-id': 'node-1', 'instance-action': 'explode' }),
      ),
    ).toEqual([
      'evt: detail.instance-id: expected an EC2 instance id (i-…), got "node-1"',
      'evt: detail.instance-action: unknown instance-action "explode" (expected one of: terminate, stop, hibernate)',
    ]);
    expect(
      problems(event('EC2 Instance State-change Notification', { 'instance-id': IID, state: 'rebooting' })),
    ).toEqual([
      'evt: detail.state: unknown instance state "rebooting" (expected one of: pending, running, stopping, stopped, shutting-down, terminated)',
    ]);
    expect(
      problems({ ...event('EC2 Instance Rebalance Recommendation', { 'instance-id': IID }), version: '1' }),
    ).toEqual(['evt: version: unsupported EventBridge event version "1" (expected "0")']);
    const { detail: _d, time: _t, ...bare } = event('EC2 Instance Rebalance Recommendation', {});
    expect(problems(bare)).toEqual([
      'evt: time: required string is missing',
      'evt: detail: required object is missing',
    ]);
    expect(
      problems(
        event(
          'AWS Health Event',
          { service: 'EC2', eventTypeCategory: 'scheduledChange', affectedEntities: [{}] },
          'aws.health',
        ),
      ),
    ).toEqual(['evt: detail.affectedEntities[0].entityValue: required string is missing']);
  });

  it('rejects an event without source or detail-type, and a body that is not JSON', () => {
    expect(problems({ version: '0' })).toEqual([
      'evt: source: required string is missing',
      'evt: detail-type: required string is missing',
    ]);
    expect(() => parseInterruptionEvent('<xml/>', { source: 'evt' })).toThrow(/^evt: body is not valid JSON/);
  });
});
