// The EventBridge events Karpless consumes, as AWS documents them (EC2 User Guide: spot interruption notices,
// rebalance recommendations, instance state-change events; AWS Health User Guide: EventBridge schema). Only the
// fields we read are typed; the rest is carried through untouched.
import type { InstanceState } from '../ports';

export interface EventBridgeEvent<DetailType extends string, Detail> {
  version: '0';
  id: string;
  'detail-type': DetailType;
  source: string;
  account: string;
  /** ISO-8601, second precision. */
  time: string;
  region: string;
  resources: string[];
  detail: Detail;
}

export type SpotInterruptionWarning = EventBridgeEvent<
  'EC2 Spot Instance Interruption Warning',
  { 'instance-id': string; 'instance-action': 'terminate' | 'stop' | 'hibernate' }
>;

export type RebalanceRecommendation = EventBridgeEvent<
  'EC2 Instance Rebalance Recommendation',
  { 'instance-id': string }
>;

export type InstanceStateChange = EventBridgeEvent<
  'EC2 Instance State-change Notification',
  { 'instance-id': string; state: InstanceState }
>;

export interface HealthEventDetail {
  eventArn: string;
  service: string;
  eventTypeCode: string;
  eventTypeCategory: 'issue' | 'accountNotification' | 'scheduledChange' | 'investigation';
  /** RFC 1123, e.g. "Sat, 05 Jun 2021 15:10:09 GMT". */
  startTime?: string;
  endTime?: string;
  eventDescription?: { language: string; latestDescription: string }[];
  affectedEntities?: { entityValue: string; tags?: Record<string, string> }[];
}

export type HealthEvent = EventBridgeEvent<'AWS Health Event', HealthEventDetail>;

export const EVENTBRIDGE_VERSION = '0';

/** The two-minute warning: EC2 reclaims a spot instance this long after the event's time. */
export const SPOT_INTERRUPTION_NOTICE_MS = 2 * 60 * 1000;

export const INSTANCE_STATES: readonly InstanceState[] = [
  'pending',
  'running',
  'stopping',
  'stopped',
  'shutting-down',
  'terminated',
];

/** EC2 instance ids: "i-" and 8 or 17 hex digits. */
export const INSTANCE_ID = /^i-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;

/** The event patterns the stack's EventBridge rules match, one per signal; the parser accepts exactly these. */
export const INTERRUPTION_EVENT_PATTERNS = {
  spotInterruption: { source: ['aws.ec2'], detailType: ['EC2 Spot Instance Interruption Warning'] },
  rebalanceRecommendation: { source: ['aws.ec2'], detailType: ['EC2 Instance Rebalance Recommendation'] },
  stateChange: { source: ['aws.ec2'], detailType: ['EC2 Instance State-change Notification'] },
  scheduledChange: {
    source: ['aws.health'],
    detailType: ['AWS Health Event'],
    detail: { service: ['EC2'], eventTypeCategory: ['scheduledChange'] },
  },
} as const;
