// What every control-plane use-case receives: the ports, a clock, observability callbacks and the timers of
// docs/architecture.md (Timers). Handlers build one of these from real adapters; tests and the simulator build one from
// shared/sim. Nothing here imports an SDK.
import { DISRUPTION_SETTINGS_DEFAULTS, type DisruptionSettings } from '../disruption';
import type { MetricFn } from '../metrics';
import type { Clock, CloudProvider, ClusterApi, InstanceProvider, NodeClaimStore, WorkQueue } from '../ports';
import type { SchedulingInput, SchedulingResult } from '../scheduling';

export type { MetricFn, MetricUnit } from '../metrics';

export type LogFields = Record<string, unknown>;

/** Logger-like callbacks; Powertools' Logger satisfies this shape. */
export interface ControlPlaneLog {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type RebalancePolicy = 'record' | 'interrupt';

export interface ControlPlaneConfig {
  /** Cap on one solve; pods not placed in time wait for the next pass. */
  solveTimeoutMs: number;
  /** How long an offering refused for insufficient capacity is skipped. */
  iceTtlMs: number;
  /** A claim not launched within this is failed and its pods re-planned. */
  launchTimeoutMs: number;
  /** A launched claim whose node has not registered within this is failed, its instance terminated. */
  registrationTimeoutMs: number;
  /** A Pending claim younger than this belongs to a pass that may still be launching it; older ones are
   * relaunched (same uid, so the cloud returns the same instance). */
  pendingRelaunchAfterMs: number;
  /** Instances with no claim are terminated by GC once older than this. */
  orphanGraceMs: number;
  /** Bind nominated pods once their node is initialized. Off by default, as in Karpenter: Karpless nominates (a
   * `Nominated` event) and kube-scheduler binds, so scheduler plugins and custom schedulers keep their say. On is
   * an opt-in with the trade-offs in docs/kubernetes.md ("Binding"), and needs `create` on pods/binding. */
  bindPods: boolean;
  /** Pending pods nominated to an initialized claim stay reserved there this long after it initialized, then are
   * planned again, so a nomination kube-scheduler disagrees with never strands a pod. */
  nominationTtlMs: number;
  rebalance: RebalancePolicy;
  /** Termination: how long to wait between drain steps, and at most how many evictions one step issues. */
  drainRequeueSeconds: number;
  drainBlockedRequeueSeconds: number;
  maxEvictionsPerStep: number;
  /** A Draining (or Failed) claim with no progress for this long has lost its termination chain and is queued again,
   * the window doubling with each redrive. Longer than a failing chain lives on the termination queue
   * (maxReceiveCount × visibility timeout, 25 minutes), so a live chain is never doubled
   * (docs/disruption.md, Drains that outlive an outage). */
  terminationStallMs: number;
  /** The cluster's disruption settings (clusters.yaml `settings`, a scenario's `spec.settings`). */
  disruption: DisruptionSettings;
  /** The NodePools this Karpless owns (clusters.yaml `nodePools`, ownership.ts); undefined: every NodePool. */
  ownedNodePools?: readonly string[];
}

export const DEFAULT_CONFIG: ControlPlaneConfig = {
  solveTimeoutMs: 60_000,
  iceTtlMs: 3 * 60_000,
  launchTimeoutMs: 5 * 60_000,
  registrationTimeoutMs: 15 * 60_000,
  pendingRelaunchAfterMs: 30_000,
  orphanGraceMs: 30_000,
  bindPods: false,
  nominationTtlMs: 60_000,
  rebalance: 'record',
  drainRequeueSeconds: 5,
  drainBlockedRequeueSeconds: 15,
  maxEvictionsPerStep: 100,
  terminationStallMs: 30 * 60_000,
  disruption: DISRUPTION_SETTINGS_DEFAULTS,
};

export function controlPlaneConfig(overrides: Partial<ControlPlaneConfig> = {}): ControlPlaneConfig {
  return { ...DEFAULT_CONFIG, ...overrides };
}

export type Solver = (input: SchedulingInput) => SchedulingResult | Promise<SchedulingResult>;

/** What the use-cases that never plan or launch receive: termination steps, GC, node lifecycle and the messages
 * they queue. A ControlPlaneDeps is one of these. */
export interface InstanceDeps {
  /** The cluster name: the store partition, the FIFO group id and the tag value. */
  cluster: string;
  kube: ClusterApi;
  cloud: InstanceProvider;
  store: NodeClaimStore;
  /** The cluster FIFO queue: re-plan hints (MessageGroupId = cluster). */
  queue: WorkQueue;
  /** Where termination steps re-queue themselves with a delay. SQS FIFO queues ignore per-message DelaySeconds,
   * so production points this at a standard queue; defaults to `queue`. */
  terminationQueue?: WorkQueue;
  clock: Clock;
  log: ControlPlaneLog;
  metric: MetricFn;
  config: ControlPlaneConfig;
  /** Random source for NodeClaim uids and name suffixes; seeded in simulations so runs repeat. */
  random?: () => number;
}

/** Everything a use-case that plans and launches receives. */
export interface ControlPlaneDeps extends InstanceDeps {
  cloud: CloudProvider;
  /** The scheduler; defaults to shared/scheduling's `solve`. Injected by benchmarks and fault tests. */
  solve?: Solver;
}

export const silentLog: ControlPlaneLog = { debug() {}, info() {}, warn() {}, error() {} };
export const noMetric: MetricFn = () => {};
