// The EMF metric names the control plane emits and the stack's dashboard and alarms read, in one place: MetricFn
// takes a MetricName, so a misspelt name does not compile, and stacks/cluster-operations.test.ts checks that every
// name is on the dashboard or on its list of names deliberately off it. Powertools adds a `service` dimension (the
// function name) and its own `ColdStart` metric. A root file of shared/, below every layer: the use-cases emit the
// names, the adapters and handlers report with them and the stack draws them (docs/architecture.md, "Layers").
export const METRIC_NAMESPACE = 'Karpless';
export const CLUSTER_DIMENSION = 'cluster';
export const NODEPOOL_DIMENSION = 'nodePool';

export const MetricNames = {
  /** Pods seen pending by a provisioning pass (Count). */
  PendingPods: 'PendingPods',
  /** Pods a provisioning pass could not place (Count). */
  UnschedulablePods: 'UnschedulablePods',
  /** One solve (Milliseconds). */
  SolveDuration: 'SolveDuration',
  /** Pods a solve ran out of time for, planned by a continuation pass (Count; 0 when none, so the alarm sees data). */
  PodsDeferred: 'PodsDeferred',
  /** Solves that reached their deadline with pods deferred (Count). */
  SolveDeadlineReached: 'SolveDeadlineReached',
  /** One provisioning pass, snapshot to launches (Milliseconds). */
  ProvisionDuration: 'ProvisionDuration',
  /** NodeClaims launched, with the NODEPOOL_DIMENSION (Count). */
  Launches: 'Launches',
  /** From the pending pod's event to the CreateFleet call (Milliseconds). */
  LaunchLatency: 'LaunchLatency',
  /** One CreateFleet call (Milliseconds). */
  CreateFleetDuration: 'CreateFleetDuration',
  /** Offerings refused with insufficient capacity, with the NODEPOOL_DIMENSION (Count). */
  InsufficientCapacity: 'InsufficientCapacity',
  /** Launches that hit a retryable error and stay Pending (Count). */
  LaunchRetries: 'LaunchRetries',
  /** Launches that failed for good, with a `reason` dimension (Count). */
  LaunchFailures: 'LaunchFailures',
  /** NodeClaims whose node registered, with the NODEPOOL_DIMENSION (Count). */
  NodeClaimsRegistered: 'NodeClaimsRegistered',
  /** NodeClaims whose node became ready, with the NODEPOOL_DIMENSION (Count). */
  NodeClaimsInitialized: 'NodeClaimsInitialized',
  /** From launch to initialized (Milliseconds). */
  InitializationLatency: 'InitializationLatency',
  /** NodeClaims failed by the launch or registration timeout, with a `reason` dimension (Count). */
  NodeClaimsTimedOut: 'NodeClaimsTimedOut',
  /** Nominated pods bound to their new node (Count). */
  PodsBound: 'PodsBound',
  /** Interruption signals acted on, any kind (Count). */
  Interruptions: 'Interruptions',
  /** Live nodes, with the NODEPOOL_DIMENSION (Count, gauge emitted by each pass). */
  Nodes: 'Nodes',
  /** Sum of live NodeClaims' hourly price, USD (None, gauge). */
  CostPerHour: 'CostPerHour',
  /** Consolidation candidates a planning sweep ran out of time for, judged by the next sweep from its cursor (Count;
   * 0 when none, so the alarm sees data). */
  SweepCandidatesDeferred: 'SweepCandidatesDeferred',
  /** Planning sweeps that reached their deadline with candidates deferred (Count). */
  SweepDeadlineReached: 'SweepDeadlineReached',
  /** Disruption commands decided by a sweep (Count). */
  DisruptionDecided: 'DisruptionDecided',
  /** Disruption commands that tainted their nodes and began replacing or draining them (Count); also one per node
   * that starts draining, with a `cause` dimension. */
  DisruptionStarted: 'DisruptionStarted',
  /** Disruption commands dropped at validation or abandoned (Count). */
  DisruptionDropped: 'DisruptionDropped',
  /** NodeClaims the control plane began to disrupt (Karpenter's karpenter_nodeclaims_disrupted_total), with a `reason`
   * (empty, underutilized, drifted, expired, interrupted, unhealthy) and the NODEPOOL_DIMENSION (Count). */
  NodeClaimsDisrupted: 'NodeClaimsDisrupted',
  /** NodeClaims node repair terminated (Karpenter's karpenter_nodeclaims_unhealthy_disrupted_total), with the
   * unhealthy `condition` in snake case and the NODEPOOL_DIMENSION (Count). */
  NodeClaimsUnhealthyDisrupted: 'NodeClaimsUnhealthyDisrupted',
  /** Pods evicted by a drain step (Count). */
  PodsEvicted: 'PodsEvicted',
  /** Drains that reached their terminationGracePeriod deadline (Count). */
  DrainDeadlineReached: 'DrainDeadlineReached',
  /** Terminations that stopped moving (their step messages dead-lettered) and were queued again by the Sweep tick
   * (Count; 0 when none). */
  TerminationsRedriven: 'TerminationsRedriven',
  /** Terminate messages that named a live claim no decision had started to end: refused, the claim untouched
   * (Count). */
  TerminationsRefused: 'TerminationsRefused',
  /** NodeClaims terminated, with a `cause` dimension (Count). */
  NodeClaimsTerminated: 'NodeClaimsTerminated',
  /** Instances GC terminated because no claim owns them (Count). */
  OrphanInstancesTerminated: 'OrphanInstancesTerminated',
  /** Orphan instances whose termination failed, e.g. refused by IAM; GC logs each and goes on (Count). */
  OrphanTerminationsFailed: 'OrphanTerminationsFailed',
  /** Orphan instances tagged for the cluster with no proof that Karpless launched them: GC logs each and leaves it
   * running (Count). */
  OrphansUnproven: 'OrphansUnproven',
  /** Claims GC ended because their instance is gone (Count). */
  ClaimsWithInstanceGone: 'ClaimsWithInstanceGone',
  /** NodePools whose status says they cannot launch (Count, gauge emitted by each Sweep tick's status pass). */
  NodePoolsNotReady: 'NodePoolsNotReady',
  /** Price refreshes stored (Count). */
  PriceRefreshSucceeded: 'PriceRefreshSucceeded',
  /** Price refreshes that failed; the last stored prices or the embedded catalog stay in use (Count). */
  PriceRefreshFailed: 'PriceRefreshFailed',
  /** Cluster-queue hints answered by a run that had already read the cluster after they were sent (Count). */
  HintsCoalesced: 'HintsCoalesced',
  /** SQS records that failed validation (Count). */
  PoisonMessages: 'PoisonMessages',
  /** SQS records reported back for redelivery (Count). */
  BatchItemFailures: 'BatchItemFailures',
} as const;

export type MetricName = (typeof MetricNames)[keyof typeof MetricNames];

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds' | 'None';

/** One metric data point; handlers map it onto Powertools Metrics (EMF). */
export type MetricFn = (
  name: MetricName,
  value: number,
  unit?: MetricUnit,
  dimensions?: Record<string, string>,
) => void;
