// Validates an EventBridge event from the interruption queue and normalizes it to an InterruptionSignal. Events we
// do not act on (other detail types, Health events for other services) are `{ ignored }`, cheap to drop; events
// that claim to be ours but are malformed throw ValidationError so the message goes to the DLQ with a clear reason.
import type { InterruptionSignal } from '../messages';
import type { InstanceState } from '../ports';
import { EVENTBRIDGE_VERSION, INSTANCE_ID, INSTANCE_STATES, SPOT_INTERRUPTION_NOTICE_MS } from './eventbridge';
import { bodyParser, describe, type JsonObject, join, Reader } from './reader';

export interface IgnoredEvent {
  ignored: string;
}

export const parseInterruptionEvent = bodyParser('interruption event', validateInterruptionEvent);

export function isIgnored(result: InterruptionSignal | IgnoredEvent): result is IgnoredEvent {
  return 'ignored' in result;
}

export function validateInterruptionEvent(
  value: unknown,
  source = 'interruption event',
): InterruptionSignal | IgnoredEvent {
  const r = new Reader(source);
  const event = r.object(value, '');
  if (!event) {
    r.done();
    throw new Error('unreachable');
  }
  const eventSource = r.string(event, 'source', '');
  const detailType = r.string(event, 'detail-type', '');
  r.done();
  const kind = signalKind(eventSource ?? '', detailType ?? '');
  if (!kind) return { ignored: `unsupported event ${eventSource} "${detailType}"` };

  if (event.version !== EVENTBRIDGE_VERSION) {
    r.fail(
      'version',
      `unsupported EventBridge event version ${describe(event.version)} (expected "${EVENTBRIDGE_VERSION}")`,
    );
  }
  const eventId = r.string(event, 'id', '');
  const at = r.time(event, 'time', '');
  const detail = r.object(event.detail, 'detail');
  if (!detail || !eventId || !at) {
    r.done();
    throw new Error('unreachable');
  }
  const result = readDetail(r, kind, detail, eventId, at);
  r.done();
  if (!result) throw new Error('unreachable: reader reported no problem');
  return result;
}

function signalKind(source: string, detailType: string): InterruptionSignal['kind'] | undefined {
  if (source === 'aws.ec2') {
    if (detailType === 'EC2 Spot Instance Interruption Warning') return 'SpotInterruption';
    if (detailType === 'EC2 Capacity Reservation Instance Interruption Warning')
      return 'CapacityReservationInterruption';
    if (detailType === 'EC2 Instance Rebalance Recommendation') return 'RebalanceRecommendation';
    if (detailType === 'EC2 Instance State-change Notification') return 'StateChange';
  }
  if (source === 'aws.health' && detailType === 'AWS Health Event') return 'ScheduledChange';
  return undefined;
}

function readDetail(
  r: Reader,
  kind: InterruptionSignal['kind'],
  detail: JsonObject,
  eventId: string,
  at: string,
): InterruptionSignal | IgnoredEvent | undefined {
  switch (kind) {
    case 'SpotInterruption':
    case 'CapacityReservationInterruption': {
      const id = instanceId(r, detail, 'instance-id', 'detail');
      r.oneOf(detail, 'instance-action', 'detail', ['terminate', 'stop', 'hibernate'], 'instance-action');
      const deadline = new Date(Date.parse(at) + SPOT_INTERRUPTION_NOTICE_MS).toISOString();
      return id ? { kind, instanceIds: [id], deadline, eventId, at } : undefined;
    }
    case 'RebalanceRecommendation': {
      const id = instanceId(r, detail, 'instance-id', 'detail');
      return id ? { kind, instanceIds: [id], eventId, at } : undefined;
    }
    case 'StateChange': {
      const id = instanceId(r, detail, 'instance-id', 'detail');
      const state = r.oneOf<InstanceState>(detail, 'state', 'detail', INSTANCE_STATES, 'instance state');
      return id && state ? { kind, instanceIds: [id], state, eventId, at } : undefined;
    }
    case 'ScheduledChange':
      return readHealth(r, detail, eventId, at);
  }
}

function readHealth(
  r: Reader,
  detail: JsonObject,
  eventId: string,
  at: string,
): InterruptionSignal | IgnoredEvent | undefined {
  const service = r.string(detail, 'service', 'detail');
  const category = r.string(detail, 'eventTypeCategory', 'detail');
  if (service === undefined || category === undefined) return undefined;
  if (service !== 'EC2' || category !== 'scheduledChange') {
    return { ignored: `AWS Health event for service ${service}, category ${category}: not an EC2 scheduled change` };
  }
  const deadline = detail.startTime === undefined ? undefined : r.time(detail, 'startTime', 'detail');
  const instanceIds: string[] = [];
  const count = r.eachObject(detail, 'affectedEntities', 'detail', (entity, path) => {
    const value = r.string(entity, 'entityValue', path);
    // Health lists other entity kinds too (hosts, volumes); only instances concern us.
    if (value && INSTANCE_ID.test(value)) instanceIds.push(value);
  });
  if (count === undefined) return undefined;
  if (r.problems.length > 0) return undefined;
  if (instanceIds.length === 0) return { ignored: 'AWS Health EC2 scheduled change names no EC2 instance' };
  return { kind: 'ScheduledChange', instanceIds, ...(deadline && { deadline }), eventId, at };
}

function instanceId(r: Reader, obj: JsonObject, key: string, path: string): string | undefined {
  const value = r.string(obj, key, path);
  if (value === undefined) return undefined;
  if (INSTANCE_ID.test(value)) return value;
  return r.fail(join(path, key), `expected an EC2 instance id (i-…), got ${describe(value)}`);
}
