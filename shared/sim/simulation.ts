// What `karpless simulate -f` runs: the manifests are loaded into a simulated world (world.ts) and the Lambda's
// provisioning use-case (controllers/provision.ts) plans and launches on it, so the command shows the production
// path: the same solve, the same NodeClaims and claim names, the same launch onto the offering CreateFleet would
// pick. Passes repeat while a launch is dropped for insufficient capacity (see provisionUntilSettled). The report adds
// the LP lower bound on cost. Deterministic for the same objects and seed.

import type { ClusterObjects } from '../api/cluster-objects';
import { claimName } from '../api/ids';
import type { EC2NodeClass, NodePool } from '../api/karpenter';
import type { Pod } from '../api/kube';
import { podKey } from '../api/kube';
import { AnnotationMinValuesRelaxed } from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { podRef } from '../api/pods';
import type { ResourceList } from '../api/resources';
import type { InstanceType } from '../catalog/types';
import { CLAIM_NAME_SALTS, nodeClassNotReady, nodePoolNotReady, provision } from '../controllers';
import { DISRUPTION_SETTINGS_DEFAULTS } from '../disruption';
import type { CloudInstance } from '../ports';
import type {
  MinValuesPolicy,
  PackingStats,
  PlannedNodeClaim,
  PreferencePolicy,
  SchedulingInput,
  SchedulingResult,
} from '../scheduling';
import { claimsFromDump } from './dump-claims';
import type { CatalogScope } from './load-warnings';
import { poolLowerBounds, reservedRoom } from './lower-bound';
import { addReservation } from './reservations';
import { readSimulationInput, type SimulationInput } from './simulation-input';
import { createSimWorld, type SimWorld } from './world';

export { DEFAULT_POOL_WARNING } from './simulation-input';

const CLUSTER = 'sim';
/** Seeds the simulated cluster (pod uids, hence claim names) and the control plane's random source. */
const WORLD_SEED = 1;
/** Enough passes for a run of insufficient-capacity refusals; each pass refuses at least one more offering. */
const MAX_PASSES = 20;

/** Pods, NodePools and EC2NodeClasses, and any of the cluster's other objects. */
export interface SimulationObjects
  extends Pick<ClusterObjects, 'pods' | 'nodePools' | 'nodeClasses'>,
    Partial<Omit<ClusterObjects, 'pods' | 'nodePools' | 'nodeClasses'>> {
  /** Warnings from loading (conversions, defaults), carried into the result. */
  warnings?: string[];
}

/** The engine pieces a simulation runs; injected so the benchmark and tests can swap catalogs. */
export interface SimulationEngine {
  solve(input: SchedulingInput): SchedulingResult;
  lowerBound(pods: Pod[], instanceTypes: InstanceType[], daemonOverhead?: ResourceList): Promise<number> | number;
  instanceTypesFor(nodeClass: EC2NodeClass): InstanceType[];
  defaultNodePool(): { nodePool: NodePool; nodeClass: EC2NodeClass };
  /** The catalog's region and zones, for the load-time zone warnings (load-warnings.ts). */
  catalog?: CatalogScope;
}

export interface SimulationOptions {
  /** Seeds the simulated cloud's instance ids. */
  seed?: number;
  onProgress?: (message: string) => void;
  /** A wall-clock budget for the solve (the provisioner's deadline mechanism): pods it has no time for are reported
   * in `deferred` instead of planned. The plan then depends on the machine's speed, so simulations leave it unset. */
  timeBudgetMs?: number;
  /** When the budget began, on `performance.now()`'s clock: `simulate` starts it when the input is read, so the
   * setup before each solve and every earlier pass count against it. Default: each solve's own start. */
  budgetStartedAt?: number;
  /** Karpenter's scheduling operator settings (`--min-values-policy`, `--preference-policy`); default Strict and
   * Respect, as in Karpenter. */
  minValuesPolicy?: MinValuesPolicy;
  preferencePolicy?: PreferencePolicy;
  /** Handed the world the plan ran on, whose store keeps the decision records (`explain NAME -f`). */
  onWorld?: (world: SimWorld) => void;
}

export interface LaunchedNodeClaim {
  plan: PlannedNodeClaim;
  instance: CloudInstance;
  instanceType: InstanceType;
}

export interface SimulationResult {
  nodeClaims: LaunchedNodeClaim[];
  /** Nodes given as input, and launched NodeClaims not yet registered: `pods` are the pending pods this plan put
   * there, `boundPods` those already running; `inflight` when the node is not initialized yet. */
  existingNodes: { name: string; pods: Pod[]; boundPods: Pod[]; inflight?: true }[];
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
    /** Pending pods that request no CPU or memory: the lower bound counts only their pod slots. */
    podsWithoutRequests?: number;
  };
  stats: SchedulingResult['stats'];
}

export async function runSimulation(
  objects: SimulationObjects,
  engine: SimulationEngine,
  options: SimulationOptions = {},
): Promise<SimulationResult> {
  const warnings = [...(objects.warnings ?? [])];
  const input = readSimulationInput(objects, engine, warnings);
  const { nodePools, nodeClasses, defaultPool, instanceTypes, typesByName, pending, requestless, givenNodes } = input;

  const solves: SchedulingResult[] = [];
  const world = simulationWorld(objects, input, engine, options, (result) => solves.push(result));
  options.onWorld?.(world);
  for (const r of objects.capacityReservations ?? []) addReservation(world.cloud, r, world.clock.now());
  const reserved = await reservedRoom(world.cloud, nodePools, nodeClasses);
  // Claims read from a dump are stamped with the simulated clock's start, so none looks abandoned to the pass.
  const dump = claimsFromDump(
    objects.nodeClaims ?? [],
    givenNodes,
    nodePools,
    CLUSTER,
    new Date(world.clock.now()).toISOString(),
  );
  warnings.push(...dump.warnings);
  const claimOnly = dump.claims.filter((c) => !c.nodeName || !givenNodes.some((n) => n.metadata.name === c.nodeName));
  for (const claim of dump.claims) await world.store.create(claim);
  const placeable = new Set([
    ...givenNodes.map((n) => n.metadata.name),
    ...claimOnly.filter((c) => c.state !== 'Draining').map((c) => c.name),
  ]);
  const outcome = await provisionUntilSettled(world, solves, placeable, typesByName);
  // NodePools the pass skipped (their or their EC2NodeClass's status Ready=False) are named in every unschedulable reason, as the controller's
  // FailedScheduling event names them.
  const skippedPools = nodePools.flatMap((p) => {
    const reason = nodePoolNotReady(p) ?? nodeClassNotReady(p, nodeClasses);
    return reason ? [`NodePool ${p.metadata.name} skipped: ${reason}`] : [];
  });
  for (const s of skippedPools) warnings.push(s);
  const unschedulable = outcome.unschedulable.map((u) => ({
    pod: u.pod,
    reason: [u.reason, ...skippedPools].join('; '),
  }));
  const deferred = options.timeBudgetMs === undefined ? [] : (solves.at(-1)?.deferred ?? []);
  unschedulable.push(...unaccounted(pending, outcome, unschedulable, deferred));

  const launched = outcome.launched;
  const inflightNames = new Set(
    dump.claims.filter((c) => c.state !== 'Initialized' && c.state !== 'Draining').map((c) => c.nodeName ?? c.name),
  );
  const placedPods = launched.reduce((n, c) => n + c.plan.pods.length, 0);
  const lowerBoundPerHour = await poolLowerBounds(launched, nodePools, instanceTypes, engine, reserved);
  const onNodes = [...outcome.onNodes.values()].reduce((n, pods) => n + pods.length, 0);
  const out: SimulationResult = {
    nodeClaims: launched,
    existingNodes: existingNodesOf(input, claimOnly, placeable, inflightNames, outcome.onNodes),
    unschedulable,
    warnings: [...warnings, ...solverWarnings(solves)],
    summary: {
      pods: pending.length,
      scheduledPods: placedPods + onNodes,
      nodeClaims: launched.length,
      costPerHour: launched.reduce((sum, c) => sum + c.instance.pricePerHour, 0),
      lowerBoundPerHour,
      ...(requestless.length > 0 ? { podsWithoutRequests: requestless.length } : {}),
    },
    stats: {
      pods: solves.reduce((n, r) => n + r.stats.pods, 0),
      durationMs: solves.reduce((n, r) => n + r.stats.durationMs, 0),
      relaxations: solves.reduce((n, r) => n + r.stats.relaxations, 0),
      timedOut: solves.some((r) => r.stats.timedOut),
      ...planPacking(solves),
    },
  };
  if (defaultPool) out.defaultNodePool = defaultPool;
  if (options.timeBudgetMs !== undefined) out.deferred = deferred;
  return out;
}

/** The simulated world holding the objects, whose solves report progress and are handed to `solved`. */
function simulationWorld(
  objects: SimulationObjects,
  input: SimulationInput,
  engine: SimulationEngine,
  options: SimulationOptions,
  solved: (result: SchedulingResult) => void,
): SimWorld {
  const { nodePools, nodeClasses, typesByClass, typesByName, bound, pending, givenNodes } = input;
  const progress = options.onProgress ?? (() => {});
  return createSimWorld({
    cluster: CLUSTER,
    // Pod uids (and so claim names) come from `seed`; --seed varies only the cloud's instance ids.
    seed: WORLD_SEED,
    config: {
      disruption: {
        ...DISRUPTION_SETTINGS_DEFAULTS,
        ...(options.minValuesPolicy ? { minValuesPolicy: options.minValuesPolicy } : {}),
        ...(options.preferencePolicy ? { preferencePolicy: options.preferencePolicy } : {}),
      },
    },
    cloudSeed: options.seed ?? 1,
    instanceTypes: (nc) => typesByClass.get(nc.metadata.name) ?? engine.instanceTypesFor(nc),
    objects: [
      ...nodeClasses.map((o) => ({ ...o, kind: 'EC2NodeClass' })),
      ...nodePools.map((o) => ({ ...o, kind: 'NodePool' })),
      ...givenNodes,
      ...[...bound, ...pending].map((o) => ({ ...o, kind: 'Pod' })),
      ...kinded('DaemonSet', objects.daemonSets),
      ...kinded('PersistentVolumeClaim', objects.pvcs),
      ...kinded('PersistentVolume', objects.pvs),
      ...kinded('StorageClass', objects.storageClasses),
      ...kinded('Namespace', objects.namespaces),
      ...kinded('PodDisruptionBudget', objects.pdbs),
      ...kinded('NodeOverlay', objects.nodeOverlays),
      ...kinded('CSINode', objects.csiNodes),
    ],
    solve: (input) => {
      progress(
        `solving ${input.pods.length} pending pods over ${input.nodePools.length} NodePool(s) and ${typesByName.size} instance types`,
      );
      // Without a budget the pass's own cap runs on the virtual clock, which a solve never moves: no deadline.
      const started = options.budgetStartedAt;
      const budget =
        options.timeBudgetMs === undefined || started === undefined
          ? options.timeBudgetMs
          : Math.max(1, options.timeBudgetMs - (performance.now() - started));
      const cpu = process.cpuUsage();
      const result = engine.solve(
        budget === undefined
          ? input
          : { ...input, options: { ...input.options, timeoutMs: budget, now: () => performance.now() } },
      );
      // The solve's CPU time too: the bench sets the whole command's CPU against it (docs/performance.md, "Whole command").
      const used = process.cpuUsage(cpu);
      const cpuMs = Math.round((used.user + used.system) / 1000);
      progress(
        `planned ${result.nodeClaims.length} NodeClaim(s) in ${Math.round(result.stats.durationMs)} ms (${cpuMs} ms CPU)`,
      );
      solved(result);
      return result;
    },
  });
}

/** The given Nodes and the dump's claims without a Node, with the pods the passes placed on each. */
function existingNodesOf(
  input: SimulationInput,
  claimOnly: readonly NodeClaim[],
  placeable: ReadonlySet<string>,
  inflightNames: ReadonlySet<string>,
  onNodes: ReadonlyMap<string, Pod[]>,
): SimulationResult['existingNodes'] {
  const { givenNodes, bound } = input;
  return [
    ...givenNodes.map((n) => ({
      name: n.metadata.name,
      pods: onNodes.get(n.metadata.name) ?? [],
      boundPods: bound.filter((p) => p.spec.nodeName === n.metadata.name),
      ...(inflightNames.has(n.metadata.name) ? { inflight: true as const } : {}),
    })),
    ...claimOnly
      .filter((c) => placeable.has(c.name))
      .map((c) => ({
        name: c.name,
        pods: onNodes.get(c.name) ?? [],
        boundPods: [],
        inflight: true as const,
      })),
  ];
}

/**
 * What the exact packing proved about the plan's new claims: one solve's own stats when only one planned claims;
 * over several (a pass after a refused launch), their sums, never proven, since each pass packed only its own pods.
 */
function planPacking(solves: readonly SchedulingResult[]): { packing?: PackingStats } {
  const planning = solves.filter((r) => r.nodeClaims.length > 0);
  const stats = planning.flatMap((r) => (r.stats.packing ? [r.stats.packing] : []));
  if (stats.length === 0) return {};
  if (planning.length === 1 && stats[0]) return { packing: stats[0] };
  const sum = (f: (p: PackingStats) => number) => stats.reduce((n, p) => n + f(p), 0);
  return {
    packing: {
      newPods: planning.reduce((n, r) => n + r.nodeClaims.reduce((m, c) => m + c.pods.length, 0), 0),
      exactPods: sum((p) => p.exactPods),
      provenOptimal: false,
      costPerHour: sum((p) => p.costPerHour),
      boundPerHour: sum((p) => p.boundPerHour),
    },
  };
}

/** The first solve's warnings, then any a later pass added. */
function solverWarnings(solves: readonly SchedulingResult[]): string[] {
  const [first, ...later] = solves;
  const out = [...(first?.warnings ?? [])];
  for (const r of later) for (const w of r.warnings) if (!out.includes(w)) out.push(w);
  return out;
}

interface PassesOutcome {
  launched: LaunchedNodeClaim[];
  /** Pending pods placed on each given Node, by node name. */
  onNodes: Map<string, Pod[]>;
  unschedulable: { pod: Pod; reason: string }[];
}

/**
 * Runs the Lambda's provisioning pass on the simulated world until no launch is dropped for insufficient capacity.
 * A dropped claim's pods re-plan on the next pass, as the replan message makes the Lambda do, without the offerings
 * the cloud refused (cached as unavailable); MAX_PASSES bounds a claim that keeps finding none. Pods placed on a given
 * Node are bound there after each pass, as kube-scheduler would bind them, so no later pass plans them again. Claims
 * a pass writes without a plan are a static NodePool's replicas (controllers/static-pools.ts); they are reported too.
 */
async function provisionUntilSettled(
  world: SimWorld,
  solves: SchedulingResult[],
  nodeNames: ReadonlySet<string>,
  typesByName: ReadonlyMap<string, InstanceType>,
): Promise<PassesOutcome> {
  const { cluster, store, cloud } = world;
  const planOf = new Map<string, PlannedNodeClaim | 'static'>();
  const onNodes = new Map<string, Pod[]>();
  // Why each pod is not placed, as of the latest pass that said so; pods placed later are filtered out below.
  const reasons = new Map<string, { pod: Pod; reason: string }>();
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    const solvedBefore = solves.length;
    const result = await provision(world.deps, { trigger: 'simulate' });
    const solved = solves[solvedBefore];
    for (const u of solved?.unschedulable ?? []) reasons.set(podKey(u.pod), { pod: u.pod, reason: u.reason });
    const byName = plansByClaimName(solved?.nodeClaims ?? []);
    for (const name of result.created) {
      const plan = byName.get(name);
      if (!plan) {
        planOf.set(name, 'static');
        continue;
      }
      planOf.set(name, { ...plan, name });
      const claim = await store.get(name);
      const why = launchFailure(name, claim, result.dropped.includes(name), pass === MAX_PASSES);
      if (why) for (const pod of plan.pods) reasons.set(podKey(pod), { pod, reason: why });
    }
    for (const placement of solved?.existingNodes ?? []) {
      if (!nodeNames.has(placement.name)) continue;
      const known = new Set((onNodes.get(placement.name) ?? []).map(podKey));
      for (const pod of placement.pods) {
        if (known.has(podKey(pod))) continue;
        // kube-scheduler may already have bound the pod where it was nominated (a Ready node takes it at once):
        // bindPod answers 'bound' for that node and 'conflict' for another. A launched claim with no Node yet holds
        // its pods as nominations (recorded on the claim by the pass).
        if (cluster.getNode(placement.name) && (await cluster.bindPod(podRef(pod), placement.name)) !== 'bound')
          continue;
        onNodes.set(placement.name, [...(onNodes.get(placement.name) ?? []), pod]);
      }
    }
    if (result.dropped.length === 0) break;
  }

  const launched: LaunchedNodeClaim[] = [];
  const placed = new Set([...onNodes.values()].flatMap((pods) => pods.map(podKey)));
  for (const [name, plan] of planOf) {
    const claim = await store.get(name);
    const launch = claim?.state === 'Launched' && claim.instanceId ? cloud.launchOf(claim.instanceId) : undefined;
    if (!claim || !launch) continue;
    // A later pass may have nominated more pods to the claim: it carries them all.
    const pods = claim.nominatedPods.flatMap((r) => cluster.getPod(r) ?? []);
    const planned = plan === 'static' ? staticPlan(claim, launch.instance, typesByName) : plan;
    launched.push({ plan: { ...planned, pods }, instance: launch.instance, instanceType: launch.instanceType });
    for (const p of pods) placed.add(podKey(p));
  }
  const unschedulable = [...reasons.values()].filter((u) => !placed.has(podKey(u.pod)));
  return { launched, onNodes, unschedulable };
}

/** Pending pods the passes neither placed, nor reported unschedulable, nor deferred: every input pod is accounted for
 * in the report, so one the passes lost is listed rather than dropped from it. */
function unaccounted(
  pending: readonly Pod[],
  outcome: PassesOutcome,
  unschedulable: readonly { pod: Pod }[],
  deferred: readonly Pod[],
): { pod: Pod; reason: string }[] {
  const seen = new Set(
    [
      ...outcome.launched.flatMap((c) => c.plan.pods),
      ...[...outcome.onNodes.values()].flat(),
      ...unschedulable.map((u) => u.pod),
      ...deferred,
    ].map(podKey),
  );
  return pending
    .filter((p) => !seen.has(podKey(p)))
    .map((pod) => ({ pod, reason: 'still pending after the provisioning passes: no plan placed it' }));
}

/** A static NodePool's claim as a plan: the pool's requirements and types, no pods of its own, and the offering the
 * cloud launched as its cheapest. */
function staticPlan(
  claim: NodeClaim,
  instance: CloudInstance,
  typesByName: ReadonlyMap<string, InstanceType>,
): PlannedNodeClaim {
  return {
    name: claim.name,
    nodePool: claim.nodePool,
    nodeClass: claim.nodeClass,
    requirements: claim.requirements,
    minValuesRelaxed: claim.annotations?.[AnnotationMinValuesRelaxed] === 'true',
    instanceTypeOptions: claim.instanceTypeOptions.flatMap((n) => typesByName.get(n) ?? []),
    labels: claim.labels,
    taints: claim.taints,
    startupTaints: claim.startupTaints,
    pods: [],
    requests: claim.requests,
    daemonSetOverhead: {},
    cheapest: {
      instanceType: instance.instanceType,
      zone: instance.zone,
      capacityType: instance.capacityType,
      price: instance.pricePerHour,
    },
  };
}

/** Why a claim this pass wrote holds no instance, or undefined when it launched. A dropped claim's pods are planned
 * again by the next pass, which replaces this reason, unless this was the last pass. */
function launchFailure(
  name: string,
  claim: NodeClaim | undefined,
  dropped: boolean,
  lastPass: boolean,
): string | undefined {
  if (claim?.state === 'Failed') return `launch of ${name} failed: ${claim.failure?.message ?? 'unknown error'}`;
  if (dropped) {
    return `launch of ${name} failed: insufficient capacity${lastPass ? ` after ${MAX_PASSES} provisioning passes` : ''}`;
  }
  if (claim?.state === 'Pending') return `launch of ${name} did not complete: the cloud asked to retry`;
  return undefined;
}

/** Each plan under the names the provisioning pass may write it as (claim names derive from the pods, salted when
 * the name is taken). */
function plansByClaimName(plans: readonly PlannedNodeClaim[]): Map<string, PlannedNodeClaim> {
  const out = new Map<string, PlannedNodeClaim>();
  for (const p of plans) {
    const refs = p.pods.map(podRef);
    for (let salt = 0; salt < CLAIM_NAME_SALTS; salt++) out.set(claimName(p.nodePool, refs, salt), p);
  }
  return out;
}

function kinded<T extends object>(kind: string, list: readonly T[] | undefined): (T & { kind: string })[] {
  return (list ?? []).map((o) => ({ ...o, kind }));
}
