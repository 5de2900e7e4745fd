// Constants of the EventBridge events Karpless consumes, as AWS documents them (EC2 User Guide: spot interruption
// notices, rebalance recommendations, instance state-change events; AWS Health User Guide: EventBridge schema). The
// parser in interruption.ts reads the fields it needs and checks them; the stack's rules match these patterns.
export { INSTANCE_STATES } from '../ports';

export const EVENTBRIDGE_VERSION = '0';

/** The two-minute warning: EC2 reclaims a spot instance, or one in an interruptible capacity reservation, this long
 * after the event's time. */
export const SPOT_INTERRUPTION_NOTICE_MS = 2 * 60 * 1000;

/** EC2 instance ids: "i-" and 8 or 17 hex digits. */
export const INSTANCE_ID = /^i-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;

/** The event patterns the stack's EventBridge rules match, one per signal; the parser accepts exactly these. */
export const INTERRUPTION_EVENT_PATTERNS = {
  spotInterruption: { source: ['aws.ec2'], detailType: ['EC2 Spot Instance Interruption Warning'] },
  /** An interruptible capacity reservation's owner reclaims capacity (Karpenter v1.10's extra rule). */
  capacityReservationInterruption: {
    source: ['aws.ec2'],
    detailType: ['EC2 Capacity Reservation Instance Interruption Warning'],
  },
  rebalanceRecommendation: { source: ['aws.ec2'], detailType: ['EC2 Instance Rebalance Recommendation'] },
  stateChange: { source: ['aws.ec2'], detailType: ['EC2 Instance State-change Notification'] },
  scheduledChange: {
    source: ['aws.health'],
    detailType: ['AWS Health Event'],
    detail: { service: ['EC2'], eventTypeCategory: ['scheduledChange'] },
  },
} as const;
