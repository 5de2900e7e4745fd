// The disruption engine's contract: what one sweep sees and what it decides. Pure data, so the Lambda sweep, the
// simulator and `karpless explain` share it.
import type { DisruptionReason, EC2NodeClass, NodePool } from '../api/karpenter';
import type { DaemonSet, Pod, PodDisruptionBudget } from '../api/kube';
import type { DecisionRecord, NodeClaim } from '../api/nodeclaim';
import type { SweepCursor } from '../api/sweep-cursor';
import type { AppliedPriceOverlay, InstanceType, UnavailableOffering } from '../catalog/types';
import type { ClusterNode, MinValuesPolicy, PlannedNodeClaim, PreferencePolicy } from '../scheduling';

/** Why a command disrupts its candidates: the budget reasons plus forceful expiration. */
export type CommandReason = DisruptionReason | 'Expired';

/** One node as the sweep sees it: the solver's view of the node plus the claim behind it. */
export interface DisruptionNode {
  /** Name, labels, taints, allocatable, bound pods, price and capacity type; `markedForDeletion` = already going. */
  node: ClusterNode;
  claim: NodeClaim;
  /** The Node object's annotations (karpenter.sh/do-not-disrupt). */
  annotations?: Record<string, string>;
  /** Epoch ms of the last pod arriving on or leaving the node; default: when the claim initialized. */
  lastPodEventAt?: number;
  /** Epoch ms the provisioner last nominated pods to this node. */
  nominatedAt?: number;
  /** The kubelet's version (status.nodeInfo.kubeletVersion). */
  kubeletVersion?: string;
  /** Drift the cloud provider found (AMI, subnet or security group no longer resolved). */
  cloudDrift?: string;
  /** The Node's Ready condition is not True: it counts against its NodePool's disruption budget, as a disrupting
   * node does (Karpenter's rule, docs/disruption.md). */
  notReady?: boolean;
}

/** One past disruption of a NodePool, kept between sweeps for back-off. */
export interface HistoryEntry {
  at: number;
  reason: CommandReason;
  /** Nodes removed and replacements launched. */
  removed: number;
  launched: number;
}

export type DisruptionHistory = Record<string, HistoryEntry[]>;

export interface DisruptionOptions {
  /** A replacement must save at least this fraction of the candidates' price. Default 0.05. */
  minSavingFraction?: number;
  /** Karpenter's SpotToSpotConsolidation feature gate: replace spot nodes with spot nodes. Default false (spot
   * nodes are then only deleted, never replaced by spot), as in Karpenter. */
  spotToSpotConsolidation?: boolean;
  /** Spot-to-spot single-node replacement needs at least this many cheaper types. Default 15. */
  spotToSpotMinTypes?: number;
  /** A node nominated within this many ms is left alone. Default 20 000. */
  nominationProtectionMs?: number;
  /** Largest merge group tried by the binary search (Karpenter's is 100). Default 100. */
  maxMergeCandidates?: number;
  /** Merge groups tried beyond the binary search (local search around the best prefix). Default 24. */
  mergeSearchBudget?: number;
  /** Candidates with constrained pods (topology, affinity, host ports, volumes) checked with the full solver per
   * sweep; the rest are checked by the fast capacity model. Default 4. */
  maxSolverChecks?: number;
  /** Candidates solved together in one consolidation batch per sweep; the rest wait for the next sweep (Karpenter
   * itself acts on one command per sweep). Default 300. */
  maxBatchCandidates?: number;
  /** Single nodes whose pods a full solve may spread over several cheaper new nodes (a split), per sweep; Karpenter
   * only ever replaces a node with one. Default 2. */
  maxSplitChecks?: number;
  /** Back-off: a NodePool with this many replacing commands inside `churnWindowMs` pauses replacements. Default 3. */
  churnLimit?: number;
  /** Default 1 h. */
  churnWindowMs?: number;
  /** Karpenter's MinValuesPolicy operator setting for the replacement solves, as provisioning follows it. Default
   * Strict. */
  minValuesPolicy?: MinValuesPolicy;
  /** Karpenter's PreferencePolicy operator setting for the replacement solves. Default Respect. */
  preferencePolicy?: PreferencePolicy;
  /** Clock for the time budget and the timing stats (decisions use `input.now`). Default performance.now. */
  timer?: () => number;
  /** Planning time on the `timer` clock: past it the sweep stops, keeps the commands decided so far and returns a
   * `cursor` where the next sweep resumes (docs/disruption.md, A deadline for the sweep). Undefined: no limit. */
  timeBudgetMs?: number;
}

export interface DisruptionInput {
  /** Epoch ms. */
  now: number;
  cluster?: string;
  nodes: DisruptionNode[];
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  /** Instance types per NodePool, as the provisioner resolves them. */
  instanceTypes: Map<string, InstanceType[]>;
  pendingPods?: Pod[];
  pdbs?: PodDisruptionBudget[];
  daemonSets?: DaemonSet[];
  unavailableOfferings?: UnavailableOffering[];
  /** The control plane's Kubernetes version ("1.31"); nodes on another minor version are drifted. */
  kubernetesVersion?: string;
  history?: DisruptionHistory;
  options?: DisruptionOptions;
  /** Where the last sweep stopped on its deadline; consolidation starts there and wraps around. */
  resumeFrom?: SweepCursor;
  /** Live claims per NodePool, those still launching and those draining included: a static pool's drift counts them
   * against its replicas and limits.nodes. Absent: the nodes above are counted. */
  claimsPerPool?: Record<string, number>;
}

export interface Candidate {
  name: string;
  nodeClaim: string;
  nodePool: string;
  price: number;
  /** The NodeOverlay that set `price` (docs/api.md, NodeOverlay): explain names it. */
  overlay?: AppliedPriceOverlay;
  capacityType?: 'spot' | 'on-demand' | 'reserved';
  pods: number;
  disruptionCost: number;
  /** The claim's terminationGracePeriod: the drain's limit, after which pods still on the node are deleted. */
  terminationGracePeriod?: string;
}

export interface DisruptionCommand {
  id: string;
  reason: CommandReason;
  /** True for expiration only: it goes even when blocked and is not budgeted; the drain still waits on PDBs. */
  forceful: boolean;
  candidates: Candidate[];
  /** Launch these and wait for them to initialize before draining the candidates. */
  replacements: PlannedNodeClaim[];
  /** Pods that move to other existing nodes, by target node name. */
  moves: Record<string, string[]>;
  /** Candidates' price minus replacements' price, $/h. */
  savingPerHour: number;
  record: DecisionRecord;
}

export interface RejectedCandidate {
  name: string;
  nodeClaim: string;
  nodePool?: string;
  blockers: string[];
}

/** A node consolidation may not judge at all, with Karpenter's `Unconsolidatable` event message. */
export interface UnconsolidatableNode {
  name: string;
  nodeClaim: string;
  message: string;
}

export interface DisruptionPlan {
  at: number;
  commands: DisruptionCommand[];
  rejected: RejectedCandidate[];
  /** Nodes whose NodePool rules consolidation out (disabled, or WhenEmpty and the node is not empty). */
  unconsolidatable?: UnconsolidatableNode[];
  /** One record per rejected candidate (kind Keep), and the commands' own records. */
  records: DecisionRecord[];
  stats: {
    nodes: number;
    candidates: number;
    solverCalls: number;
    durationMs: number;
    /** The time budget ran out before every candidate was judged. */
    deadlineReached?: boolean;
    /** Candidates the deadline kept from being judged this sweep (no record; the next sweep resumes at `cursor`). */
    deferred?: number;
  };
  /** Set when the deadline cut the sweep short: where the next sweep's consolidation starts. */
  cursor?: SweepCursor;
}

export type { ClusterNode, PlannedNodeClaim, SweepCursor };
