// One provisioning pass over a set of manifests: what `karpless simulate` runs. Pending pods are planned by the
// solver onto existing nodes and new NodeClaims, and each planned claim is launched on the simulated cloud, which
// picks the offering CreateFleet would. Deterministic for the same objects and seed.

import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type {
  DaemonSet,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  StorageClass,
} from '../api/kube';
import type { NodeClaim } from '../api/nodeclaim';
import type { NodeOverlay } from '../api/nodeoverlay';
import { isTerminal } from '../api/pods';
import type { ResourceList } from '../api/resources';
import { applyNodeOverlays } from '../catalog/overlay';
import type { InstanceType } from '../catalog/types';
import { overlayPool } from '../controllers/snapshot';
import { InsufficientCapacityError, LaunchError, ValidationError } from '../errors';
import type { CloudInstance } from '../ports';
import { loadLpSolver } from '../scheduling';
import type { PlannedNodeClaim, SchedulingInput, SchedulingResult } from '../scheduling/types';
import { toClusterNodes } from './existing-nodes';
import { restrictOfferings } from './offering-filter';
import { typesAllowedBy } from './pool-types';
import { createRng } from './rng';
import { SimCloud } from './sim-cloud';
import { VirtualClock } from './virtual-clock';

export interface SimulationObjects {
  pods: Pod[];
  nodes?: Node[];
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  daemonSets?: DaemonSet[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  storageClasses?: StorageClass[];
  namespaces?: Namespace[];
  pdbs?: PodDisruptionBudget[];
  /** Applied to every NodePool's instance types before the solve (docs/api.md, "NodeOverlay"). */
  nodeOverlays?: NodeOverlay[];
  /** Warnings from loading (conversions, defaults), carried into the result. */
  warnings?: string[];
}

/** The engine pieces a simulation runs; injected so the benchmark and tests can swap catalogs. */
export interface SimulationEngine {
  solve(input: SchedulingInput): SchedulingResult;
  lowerBound(pods: Pod[], instanceTypes: InstanceType[], daemonOverhead?: ResourceList): Promise<number> | number;
  instanceTypesFor(nodeClass: EC2NodeClass): InstanceType[];
  defaultNodePool(): { nodePool: NodePool; nodeClass: EC2NodeClass };
}

export interface SimulationOptions {
  seed?: number;
  onProgress?: (message: string) => void;
  clock?: VirtualClock;
  /** A wall-clock budget for the solve (the provisioner's deadline mechanism): pods it has no time for are reported
   * in `deferred` instead of planned. The plan then depends on the machine's speed, so simulations leave it unset. */
  timeBudgetMs?: number;
}

export interface LaunchedNodeClaim {
  plan: PlannedNodeClaim;
  instance: CloudInstance;
  instanceType: InstanceType;
}

export interface SimulationResult {
  nodeClaims: LaunchedNodeClaim[];
  /** Nodes given as input: `pods` are the pending pods this plan put there, `boundPods` those already running. */
  existingNodes: { name: string; pods: Pod[]; boundPods: Pod[] }[];
  unschedulable: { pod: Pod; reason: string }[];
  /** Pods the time budget left unplanned; present only when a budget was given. */
  deferred?: Pod[];
  warnings: string[];
  /** Set when no NodePool was given and the embedded default was used. */
  defaultNodePool?: string;
  summary: {
    pods: number;
    scheduledPods: number;
    nodeClaims: number;
    costPerHour: number;
    lowerBoundPerHour: number;
  };
  stats: SchedulingResult['stats'];
}

export const DEFAULT_POOL_WARNING = (name: string): string =>
  `no NodePool given: using the embedded default NodePool "${name}" (linux, amd64, spot and on-demand, instance categories c, m and r, generation > 2)`;

export async function runSimulation(
  objects: SimulationObjects,
  engine: SimulationEngine,
  options: SimulationOptions = {},
): Promise<SimulationResult> {
  await loadLpSolver();
  const progress = options.onProgress ?? (() => {});
  const warnings = [...(objects.warnings ?? [])];
  const { nodePools, nodeClasses, defaultPool } = withDefaultPool(objects, engine, warnings);
  const overlaid = applyNodeOverlays(
    objects.nodeOverlays ?? [],
    nodePools.map(overlayPool),
    resolveInstanceTypes(nodePools, nodeClasses, engine),
  );
  const instanceTypes = overlaid.instanceTypes;
  for (const c of overlaid.conflicts) warnings.push(`NodeOverlay/${c.overlay}: not applied: ${c.reason}`);
  const typesByName = new Map<string, InstanceType>();
  for (const types of instanceTypes.values())
    for (const t of types) if (!typesByName.has(t.name)) typesByName.set(t.name, t);

  const { bound, pending } = splitPods(objects, warnings);
  const existingNodes = toClusterNodes(objects.nodes ?? [], bound, typesByName);

  progress(
    `solving ${pending.length} pending pods over ${nodePools.length} NodePool(s) and ${typesByName.size} instance types`,
  );
  const clock = options.clock ?? new VirtualClock();
  const result = engine.solve({
    pods: pending,
    nodePools,
    nodeClasses,
    instanceTypes,
    existingNodes,
    daemonSets: objects.daemonSets ?? [],
    pvcs: objects.pvcs ?? [],
    pvs: objects.pvs ?? [],
    storageClasses: objects.storageClasses ?? [],
    namespaces: objects.namespaces ?? [],
    options:
      options.timeBudgetMs === undefined
        ? { now: () => clock.now() }
        : { timeoutMs: options.timeBudgetMs, now: () => performance.now() },
  });
  progress(`planned ${result.nodeClaims.length} NodeClaim(s) in ${Math.round(result.stats.durationMs)} ms`);

  const unschedulable = result.unschedulable.map((u) => ({ pod: u.pod, reason: u.reason }));
  const cloud = new SimCloud({ clock, seed: options.seed ?? 1, instanceTypes: (nc) => engine.instanceTypesFor(nc) });
  const launched = await launchPlans(
    result.nodeClaims,
    { nodePools, nodeClasses },
    cloud,
    clock,
    options.seed ?? 1,
    unschedulable,
  );

  const placedPods = launched.reduce((n, c) => n + c.plan.pods.length, 0);
  const lowerBoundPerHour = await poolLowerBounds(launched, nodePools, instanceTypes, engine);
  const scheduledPods = placedPods + result.existingNodes.reduce((n, e) => n + e.pods.length, 0);
  const out: SimulationResult = {
    nodeClaims: launched,
    existingNodes: existingNodes.map((n) => ({
      name: n.name,
      pods: result.existingNodes.find((e) => e.name === n.name)?.pods ?? [],
      boundPods: n.pods,
    })),
    unschedulable,
    warnings: [...warnings, ...result.warnings],
    summary: {
      pods: pending.length,
      scheduledPods,
      nodeClaims: launched.length,
      costPerHour: launched.reduce((sum, c) => sum + c.instance.pricePerHour, 0),
      lowerBoundPerHour,
    },
    stats: result.stats,
  };
  if (defaultPool) out.defaultNodePool = defaultPool;
  if (options.timeBudgetMs !== undefined) out.deferred = result.deferred ?? [];
  return out;
}

/** The given NodePools, or the embedded default (with its EC2NodeClass) and a warning saying so. */
function withDefaultPool(
  objects: SimulationObjects,
  engine: SimulationEngine,
  warnings: string[],
): { nodePools: NodePool[]; nodeClasses: EC2NodeClass[]; defaultPool?: string } {
  if (objects.nodePools.length > 0) return { nodePools: objects.nodePools, nodeClasses: objects.nodeClasses };
  const fallback = engine.defaultNodePool();
  const hasClass = objects.nodeClasses.some((c) => c.metadata.name === fallback.nodeClass.metadata.name);
  const defaultPool = fallback.nodePool.metadata.name;
  warnings.push(DEFAULT_POOL_WARNING(defaultPool));
  return {
    nodePools: [fallback.nodePool],
    nodeClasses: hasClass ? objects.nodeClasses : [...objects.nodeClasses, fallback.nodeClass],
    defaultPool,
  };
}

/** Pods bound to a given Node stay there; the rest are pending. A pod bound to a Node not given is re-planned. */
function splitPods(objects: SimulationObjects, warnings: string[]): { bound: Pod[]; pending: Pod[] } {
  const nodeNames = new Set((objects.nodes ?? []).map((n) => n.metadata.name));
  const bound: Pod[] = [];
  const pending: Pod[] = [];
  for (const pod of objects.pods) {
    // A Succeeded or Failed pod holds no resources and no topology slot, bound or not (as the controllers treat it).
    if (isTerminal(pod)) continue;
    const nodeName = pod.spec.nodeName;
    if (!nodeName) pending.push(pod);
    else if (nodeNames.has(nodeName)) bound.push(pod);
    else {
      warnings.push(
        `${pod.metadata.namespace}/${pod.metadata.name}: spec.nodeName "${nodeName}" is not among the given Nodes; treated as pending`,
      );
      const { nodeName: _unknown, ...spec } = pod.spec;
      pending.push({ ...pod, spec });
    }
  }
  return { bound, pending };
}

/** Launches each plan on the cloud with the offerings its requirements allow; a refused launch leaves its pods
 * unschedulable with the cloud's reason. */
async function launchPlans(
  plans: PlannedNodeClaim[],
  pools: { nodePools: NodePool[]; nodeClasses: EC2NodeClass[] },
  cloud: SimCloud,
  clock: VirtualClock,
  seed: number,
  unschedulable: { pod: Pod; reason: string }[],
): Promise<LaunchedNodeClaim[]> {
  const uids = createRng(seed ^ 0x5eed);
  const launched: LaunchedNodeClaim[] = [];
  for (const plan of plans) {
    const nodePool = pools.nodePools.find((p) => p.metadata.name === plan.nodePool) as NodePool;
    const nodeClass = pools.nodeClasses.find((c) => c.metadata.name === plan.nodeClass) as EC2NodeClass;
    const offered = restrictOfferings(plan.instanceTypeOptions, plan.requirements);
    try {
      const claim = toNodeClaim(plan, uids.hex(32), clock.iso());
      const instance = await cloud.create({ claim, nodePool, nodeClass, instanceTypes: offered });
      const instanceType = offered.find((t) => t.name === instance.instanceType) as InstanceType;
      launched.push({ plan, instance, instanceType });
    } catch (err) {
      if (!(err instanceof InsufficientCapacityError || err instanceof LaunchError)) throw err;
      for (const pod of plan.pods) unschedulable.push({ pod, reason: `launch of ${plan.name} failed: ${err.message}` });
    }
  }
  return launched;
}

/** The LP lower bound summed over NodePools: each pool's pods on the types and offerings that pool allows, less
 * the smallest DaemonSet overhead among its claims. It bounds the packing, not the pool assignment. */
async function poolLowerBounds(
  launched: LaunchedNodeClaim[],
  nodePools: NodePool[],
  instanceTypes: Map<string, InstanceType[]>,
  engine: SimulationEngine,
): Promise<number> {
  let total = 0;
  for (const pool of nodePools) {
    const claims = launched.filter((c) => c.plan.nodePool === pool.metadata.name);
    if (claims.length === 0) continue;
    const types = typesAllowedBy(pool.spec.template.spec.requirements, instanceTypes.get(pool.metadata.name) ?? []);
    total += await engine.lowerBound(
      claims.flatMap((c) => c.plan.pods),
      types,
      minOverhead(claims.map((c) => c.plan.daemonSetOverhead)),
    );
  }
  return total;
}

function minOverhead(lists: ResourceList[]): ResourceList {
  const [first, ...rest] = lists;
  const out: ResourceList = { ...first };
  for (const k of Object.keys(out)) for (const l of rest) out[k] = Math.min(out[k] as number, l[k] ?? 0);
  return out;
}

/** Instance types per NodePool, through the EC2NodeClass it references; a dangling reference is invalid input. */
function resolveInstanceTypes(
  nodePools: NodePool[],
  nodeClasses: EC2NodeClass[],
  engine: SimulationEngine,
): Map<string, InstanceType[]> {
  const byClass = new Map<string, InstanceType[]>();
  const out = new Map<string, InstanceType[]>();
  const problems: string[] = [];
  for (const pool of nodePools) {
    const ref = pool.spec.template.spec.nodeClassRef.name;
    const nodeClass = nodeClasses.find((c) => c.metadata.name === ref);
    if (!nodeClass) {
      const known = nodeClasses.map((c) => c.metadata.name).join(', ') || 'none given';
      problems.push(
        `NodePool/${pool.metadata.name}: spec.template.spec.nodeClassRef.name: EC2NodeClass "${ref}" not found (known: ${known})`,
      );
      continue;
    }
    let types = byClass.get(ref);
    if (!types) {
      types = engine.instanceTypesFor(nodeClass);
      byClass.set(ref, types);
    }
    out.set(pool.metadata.name, types);
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return out;
}

function toNodeClaim(plan: PlannedNodeClaim, uid: string, now: string): NodeClaim {
  return {
    name: plan.name,
    uid,
    cluster: 'sim',
    nodePool: plan.nodePool,
    nodeClass: plan.nodeClass,
    state: 'Pending',
    version: 1,
    requirements: plan.requirements,
    instanceTypeOptions: plan.instanceTypeOptions.map((t) => t.name),
    labels: plan.labels,
    taints: plan.taints,
    startupTaints: plan.startupTaints,
    requests: plan.requests,
    nominatedPods: plan.pods.map((p) => ({
      namespace: p.metadata.namespace,
      name: p.metadata.name,
      ...(p.metadata.uid ? { uid: p.metadata.uid } : {}),
    })),
    createdAt: now,
    stateTimes: { Pending: now },
  };
}
