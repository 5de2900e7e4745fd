// The EMF metric names and dimensions the functions emit and the stack's dashboard reads, in one place so a rename
// cannot silently empty a dashboard widget. Powertools also adds a `service` dimension (the function name).
export const METRIC_NAMESPACE = 'Karpless';
export const CLUSTER_DIMENSION = 'cluster';
export const NODEPOOL_DIMENSION = 'nodePool';

export const MetricNames = {
  /** Pods seen pending by a provisioning pass (Count). */
  PendingPods: 'PendingPods',
  /** NodeClaims launched (Count). */
  Launches: 'Launches',
  /** From the pending pod's event to the CreateFleet call (Milliseconds). */
  LaunchLatency: 'LaunchLatency',
  /** Offerings refused with insufficient capacity (Count). */
  InsufficientCapacity: 'InsufficientCapacity',
  /** Interruption signals acted on, any kind (Count). */
  Interruptions: 'Interruptions',
  /** Live nodes, with the NODEPOOL_DIMENSION (Count, gauge emitted by each pass). */
  Nodes: 'Nodes',
  /** Sum of live NodeClaims' hourly price, USD (None, gauge). */
  CostPerHour: 'CostPerHour',
  /** SQS records that failed validation (Count). */
  PoisonMessages: 'PoisonMessages',
  /** SQS records reported back for redelivery (Count). */
  BatchItemFailures: 'BatchItemFailures',
  /** Disruption commands decided by a sweep (Count). */
  DisruptionDecided: 'DisruptionDecided',
  /** Disruption commands that tainted their nodes and began replacing or draining them (Count). */
  DisruptionStarted: 'DisruptionStarted',
  /** Disruption commands dropped at validation or abandoned (Count). */
  DisruptionDropped: 'DisruptionDropped',
  /** NodePools whose status says they cannot launch (Count, gauge emitted by each Sweep tick's status pass). */
  NodePoolsNotReady: 'NodePoolsNotReady',
} as const;

export type MetricName = (typeof MetricNames)[keyof typeof MetricNames];
