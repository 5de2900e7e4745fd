// Node auto repair as a pure decision (docs/disruption.md, Node repair): a node whose condition matches a repair
// policy for longer than the policy's toleration is repaired (its claim terminated at once, without budgets,
// do-not-disrupt, PDBs or the grace period), unless more than 20 % of its NodePool's nodes are unhealthy, where a
// repair would only make an outage wider. The control plane runs it on the Sweep tick (shared/controllers/repair.ts).
import type { ConditionStatus, Node, NodeCondition } from '../api/kube';
import { LabelNodePool } from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { AWS_REPAIR_POLICIES, type RepairPolicy } from '../api/repair-policies';

const MINUTE = 60_000;

/** At most this share of a NodePool's nodes may be unhealthy for repairs to go ahead (Karpenter's constant). */
export const ALLOWED_UNHEALTHY_PERCENT = 20;

/** The unhealthy nodes a pool of `nodes` tolerates: 20 % rounded up, as a PDB's percentage is, so one node of three
 * may be repaired. */
export function allowedUnhealthy(nodes: number): number {
  return Math.ceil((nodes * ALLOWED_UNHEALTHY_PERCENT) / 100);
}

export interface UnhealthyCondition {
  type: string;
  status: ConditionStatus;
  /** When the condition took this status (epoch ms). */
  since: number;
  tolerationMs: number;
  /** since + tolerationMs: when the node is repaired. */
  repairAt: number;
}

/** When a condition took its status: its lastTransitionTime, else the node's creation (a kubelet always sets the
 * former; a node without either is never repaired, since its age is unknown). */
function since(condition: NodeCondition, node: Node): number | undefined {
  const at = Date.parse(condition.lastTransitionTime ?? node.metadata.creationTimestamp ?? '');
  return Number.isNaN(at) ? undefined : at;
}

/** The node's condition that matches a policy and comes due first, if any. */
export function unhealthyCondition(
  node: Node,
  policies: readonly RepairPolicy[] = AWS_REPAIR_POLICIES,
): UnhealthyCondition | undefined {
  let first: UnhealthyCondition | undefined;
  for (const policy of policies) {
    const condition = node.status?.conditions?.find((c) => c.type === policy.conditionType);
    if (condition?.status !== policy.conditionStatus) continue;
    const from = since(condition, node);
    if (from === undefined) continue;
    const repairAt = from + policy.tolerationMs;
    if (!first || repairAt < first.repairAt) {
      first = {
        type: condition.type,
        status: condition.status,
        since: from,
        tolerationMs: policy.tolerationMs,
        repairAt,
      };
    }
  }
  return first;
}

/** Unhealthy for the 20 % rule: any policy's condition holds, however recently it began. */
export function matchesRepairPolicy(node: Node, policies: readonly RepairPolicy[] = AWS_REPAIR_POLICIES): boolean {
  return policies.some(
    (p) => node.status?.conditions?.find((c) => c.type === p.conditionType)?.status === p.conditionStatus,
  );
}

export interface RepairInput {
  now: number;
  /** Every Node in the cluster: a NodePool's health counts all nodes carrying its label. */
  nodes: readonly Node[];
  /** The cluster's claims; only live ones with a node are considered. */
  claims: readonly NodeClaim[];
  policies?: readonly RepairPolicy[];
}

export interface Repair {
  nodeClaim: NodeClaim;
  node: Node;
  condition: UnhealthyCondition;
  /** For the record: e.g. "node condition Ready=Unknown for 31m (tolerated 30m)". */
  summary: string;
}

export interface RepairBlocked {
  nodeClaim: NodeClaim;
  node: Node;
  nodePool: string;
  unhealthy: number;
  total: number;
  message: string;
}

export interface RepairPlan {
  repairs: Repair[];
  blocked: RepairBlocked[];
  /** The earliest time a node that is unhealthy now comes due (so a simulation need not sweep every minute). */
  nextRepairAt?: number;
}

/** Draining claims too: a drain still waiting on pods is cut short (its deadline brought to now). */
const REPAIRABLE_STATES = new Set<NodeClaim['state']>(['Launched', 'Registered', 'Initialized', 'Draining']);

const minutes = (ms: number): string => `${Math.round(ms / MINUTE)}m`;

export function planRepairs(input: RepairInput): RepairPlan {
  const policies = input.policies ?? AWS_REPAIR_POLICIES;
  const byName = new Map(input.nodes.map((n) => [n.metadata.name, n]));
  const plan: RepairPlan = { repairs: [], blocked: [] };
  const poolHealth = new Map<string, { unhealthy: number; total: number }>();
  const healthOf = (pool: string) => {
    let h = poolHealth.get(pool);
    if (!h) {
      const members = input.nodes.filter((n) => n.metadata.labels?.[LabelNodePool] === pool);
      h = { unhealthy: members.filter((n) => matchesRepairPolicy(n, policies)).length, total: members.length };
      poolHealth.set(pool, h);
    }
    return h;
  };
  for (const claim of input.claims) {
    if (!REPAIRABLE_STATES.has(claim.state) || !claim.nodeName) continue;
    const node = byName.get(claim.nodeName);
    if (!node) continue;
    const condition = unhealthyCondition(node, policies);
    if (!condition) continue;
    if (input.now < condition.repairAt) {
      if (plan.nextRepairAt === undefined || condition.repairAt < plan.nextRepairAt)
        plan.nextRepairAt = condition.repairAt;
      continue;
    }
    const health = healthOf(claim.nodePool);
    if (health.unhealthy > allowedUnhealthy(health.total)) {
      plan.blocked.push({
        nodeClaim: claim,
        node,
        nodePool: claim.nodePool,
        ...health,
        message: `more than ${ALLOWED_UNHEALTHY_PERCENT}% nodes are unhealthy in the nodepool`,
      });
      continue;
    }
    plan.repairs.push({
      nodeClaim: claim,
      node,
      condition,
      summary: `node condition ${condition.type}=${condition.status} for ${minutes(input.now - condition.since)} (tolerated ${minutes(condition.tolerationMs)})`,
    });
  }
  return plan;
}
