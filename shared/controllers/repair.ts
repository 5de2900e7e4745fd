// Node auto repair on the Sweep tick (docs/disruption.md, Node repair; docs/architecture.md, Node repair): reads every
// Node's conditions from the API server, asks the pure planRepairs which claims are due, and terminates them at once.
// A repair is forceful: no budget, no do-not-disrupt, no PDB and no grace period holds it (the drain's deadline is
// now, as Karpenter stamps the termination timestamp), and a claim already draining has its deadline brought forward.
// It runs only where the disruption sweep runs: a Sweep tick comes from the schedule role alone, while a NodeChanged
// message can come from the forwarder, which must never be able to remove capacity (docs/architecture.md, Trust
// boundaries).
import type { NodeClaim } from '../api/nodeclaim';
import type { RepairPolicy } from '../api/repair-policies';
import { planRepairs, type RepairPlan } from '../disruption';
import { ConflictError } from '../errors';
import { NODEPOOL_DIMENSION } from '../metrics';
import type { InstanceDeps } from './deps';
import { emitEvent } from './events';
import { queueTermination } from './messages';
import { startTermination } from './termination';

export interface RepairResult {
  /** Claims whose termination this run started. */
  repaired: string[];
  /** Claims already draining whose drain deadline this run brought forward to now. */
  hastened: string[];
  /** Claims due for repair but held by the NodePool's 20 % rule. */
  blocked: string[];
  /** When the next unhealthy node comes due, if one is waiting. */
  nextRepairAt?: number;
}

const snakeCase = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

export async function repairUnhealthyNodes(
  deps: InstanceDeps,
  options: { policies?: readonly RepairPolicy[] } = {},
): Promise<RepairResult> {
  const result: RepairResult = { repaired: [], hastened: [], blocked: [] };
  if (!deps.config.disruption.nodeRepair) return result;
  const now = deps.clock.now();
  const [nodes, claims] = await Promise.all([
    deps.kube.listNodes(),
    deps.store.list({ states: ['Launched', 'Registered', 'Initialized', 'Draining'] }),
  ]);
  const plan: RepairPlan = planRepairs({
    now,
    nodes,
    claims,
    ...(options.policies ? { policies: options.policies } : {}),
  });
  if (plan.nextRepairAt !== undefined) result.nextRepairAt = plan.nextRepairAt;
  for (const b of plan.blocked) {
    result.blocked.push(b.nodeClaim.name);
    deps.log.warn('node repair blocked', {
      nodeClaim: b.nodeClaim.name,
      node: b.node.metadata.name,
      nodePool: b.nodePool,
      unhealthy: b.unhealthy,
      nodes: b.total,
    });
    await emitEvent(deps, {
      involved: {
        kind: 'Node',
        name: b.node.metadata.name,
        ...(b.node.metadata.uid ? { uid: b.node.metadata.uid } : {}),
      },
      type: 'Warning',
      reason: 'NodeRepairBlocked',
      message: b.message,
    });
  }
  const deadline = new Date(now).toISOString();
  for (const repair of plan.repairs) {
    const claim = repair.nodeClaim;
    if (claim.state === 'Draining') {
      if (await hasten(deps, claim, now)) result.hastened.push(claim.name);
      continue;
    }
    const started = await startTermination(deps, claim, { cause: 'Unhealthy', detail: repair.summary, deadline });
    if (started?.state !== 'Draining' || started.disruption?.cause !== 'Unhealthy') continue;
    result.repaired.push(claim.name);
    deps.log.info('deleting unhealthy node', {
      nodeClaim: claim.name,
      node: repair.node.metadata.name,
      why: repair.summary,
    });
    deps.metric('NodeClaimsUnhealthyDisrupted', 1, 'Count', {
      condition: snakeCase(repair.condition.type),
      [NODEPOOL_DIMENSION]: claim.nodePool,
    });
  }
  return result;
}

/** Brings a draining claim's deadline forward to now (Karpenter keeps a termination timestamp already past), so the
 * next drain step stops waiting for pods a broken node cannot evict. */
async function hasten(deps: InstanceDeps, claim: NodeClaim, now: number): Promise<boolean> {
  const current = claim.drain?.deadline ? Date.parse(claim.drain.deadline) : Number.NaN;
  if (current <= now) return false;
  try {
    await deps.store.update(claim, {
      drain: {
        ...(claim.drain ?? { startedAt: new Date(now).toISOString() }),
        deadline: new Date(now).toISOString(),
      },
    });
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
  await queueTermination(deps, claim.name);
  return true;
}
