// Runs a Scenario on the simulated cloud and cluster under a virtual clock, driving the control plane's real
// use-cases as the Lambdas would be driven:
// - pods turning pending start a forwarder batch (flushed after 1 s idle or 10 s), which runs `provision`; a step that
//   changes a NodePool, EC2NodeClass or NodeOverlay joins the batch, which then also delivers NodePoolChanged;
// - node registration and Ready start a node batch, which runs `reconcileNodes` (lifecycle and binding);
// - every sweepEvery, the Sweep message goes through `handleControlMessage` with the disruption sweep wired in;
// - termination runs as queued `terminateStep` messages with their delays; interruptions go to `handleInterruption`;
// - garbage collection runs every 2 minutes.
// kube-scheduler is played by the simulated cluster (SimScheduler), which binds each nominated pod once its node can
// take it; Karpless binds too only when `bindPods` is opted in. Time jumps from one due event to the next, so a day
// of simulated time takes seconds, and the same seed gives the same run.

import { buildManifestSet } from '../../api/build';
import { DEFAULT_NODEPOOL_NAME } from '../../api/default-nodepool';
import { amiFamilyOf, defaultBlockDeviceMappings } from '../../api/defaults';
import { specHash } from '../../api/hash';
import type { EC2NodeClass, NodePool } from '../../api/karpenter';
import type { PodDisruptionBudget } from '../../api/kube';
import type { NodeClaim } from '../../api/nodeclaim';
import type { InstanceType } from '../../catalog/types';
import {
  collectGarbage,
  handleControlMessage,
  handleInterruption,
  provision,
  reconcileNodes,
  syncReservedCapacityTypes,
} from '../../controllers';
import type { DisruptionOptions } from '../../disruption';
import { ValidationError } from '../../errors';
import { parseControlMessage } from '../../events';
import type { ClusterMessage, SweepMessage } from '../../messages';
import { loadLpSolver } from '../../scheduling';
import { addReservation } from '../reservations';
import type { SimCluster } from '../sim-cluster';
import type { SimulationEngine } from '../simulation';
import { createSimWorld, type SimWorld } from '../world';
import { ClusterActivity } from './activity';
import { applyCloudStep } from './cloud-steps';
import { DisruptionDriver, type SweepEngine } from './disruption-driver';
import { LowerBoundTracker } from './lower-bound';
import { mergePatch } from './merge-patch';
import { scaleNodePool } from './nodepool-scale';
import { applyObjectStep } from './object-steps';
import { ViolationObserver, type ViolationRecord, type Violations } from './observer';
import {
  type CostSample,
  type FleetSample,
  type PendingSample,
  Recorder,
  type TimelineEntry,
  type Totals,
} from './recorder';
import { applyReservationStep } from './reservation-step';
import { applySeed } from './seed';
import type { Scenario, ScenarioStep, StepAction } from './types';
import { WorkloadController } from './workloads';

export const SCENARIO_START = '2026-01-05T00:00:00.000Z';
const BATCH_IDLE_MS = 1_000;
const BATCH_MAX_MS = 10_000;
const NODE_BATCH_MS = 1_000;
const GC_EVERY_MS = 2 * 60_000;
const SPOT_WARNING_MS = 2 * 60_000;
const MAX_SAMPLES = 480;
const CLUSTER = 'sim';

export interface ScenarioOptions {
  seed?: number;
  /** The disruption decisions; without one, no sweep disrupts anything (provisioning still runs). */
  sweep?: SweepEngine;
  disruptionOptions?: DisruptionOptions;
  /** Progress lines for long runs: a start line, then simulated and wall time every `progressEveryMs` of wall time,
   * then a done line. */
  onProgress?: (message: string) => void;
  /** Wall-clock milliseconds between progress lines; 2 s by default. */
  progressEveryMs?: number;
  /** The wall clock progress lines read (milliseconds); performance.now by default, a fake one in tests. */
  wallClock?: () => number;
}

const PROGRESS_EVERY_MS = 2_000;

export interface ScenarioRun {
  scenario: string;
  seed: number;
  startedAt: string;
  until: string;
  timeline: TimelineEntry[];
  costOverTime: CostSample[];
  fleetOverTime: FleetSample[];
  pendingOverTime: PendingSample[];
  totals: Totals;
  violations: Violations;
  violationRecords: ViolationRecord[];
  /** Disruption starts by offset ms, NodePool and reason. */
  disruptionTimes: Recorder['disruptionTimes'];
  warnings: string[];
  /** Final state, for the §5 report. */
  world: Pick<SimWorld, 'clock' | 'cloud' | 'cluster' | 'store'>;
  finalLowerBoundPerHour: number;
  commands: { started: number; dropped: number };
  /** Every bound pod that left its node, in order: evicted, or deleted (with its node, or as it completed). */
  podRemovals: { at: string; pod: string; node: string; how: 'evicted' | 'deleted' }[];
}

export async function runScenario(
  scenario: Scenario,
  engine: SimulationEngine,
  options: ScenarioOptions = {},
): Promise<ScenarioRun> {
  await loadLpSolver();
  const seed = options.seed ?? 1;
  const progress = options.onProgress ?? (() => {});
  const wall = options.wallClock ?? (() => performance.now());
  const wallStart = wall();
  let nextReport = wallStart + (options.progressEveryMs ?? PROGRESS_EVERY_MS);
  const wallText = (): string => `${((wall() - wallStart) / 1000).toFixed(1)} s wall`;
  const instanceTypesFor = memoByNodeClass(engine.instanceTypesFor);
  const readyPart = Math.min(15_000, Math.round(scenario.nodeReadyAfter / 3));
  const world = createSimWorld({
    cluster: CLUSTER,
    seed,
    randomSeed: seed ^ 0x5ce7a210,
    start: SCENARIO_START,
    instanceTypes: instanceTypesFor,
    registrationDelayMs: scenario.nodeReadyAfter - readyPart,
    readyDelayMs: readyPart,
    replaceEvictedPods: true,
    ...(scenario.settings ? { config: { disruption: scenario.settings } } : {}),
    solve: engine.solve,
  });
  const { clock, cloud, cluster, store, queue, deps } = world;
  const start = clock.now();
  const end = start + scenario.until;

  const warnings = [...scenario.warnings];
  // PodDisruptionBudgets change only when a step applies manifests; the observer reads them synchronously.
  let pdbs: PodDisruptionBudget[] = [];
  const activity = new ClusterActivity(cluster, clock);
  const recorder = new Recorder(start);
  const podRemovals: ScenarioRun['podRemovals'] = [];
  activity.onRemoval((r) =>
    podRemovals.push({
      at: recorder.offset(clock.now()),
      pod: `${r.pod.metadata.namespace}/${r.pod.metadata.name}`,
      node: r.node,
      how: r.how,
    }),
  );
  const batch = {
    first: undefined as number | undefined,
    last: undefined as number | undefined,
    pods: false,
    pools: false,
  };
  const noteChange = (now: number, kind: 'pods' | 'pools'): void => {
    batch.first ??= now;
    batch.last = now;
    batch[kind] = true;
  };
  const notePending = (now: number): void => noteChange(now, 'pods');
  // The forwarder watches these kinds and sends NodePoolChanged when one changes (docs/api.md, NodeOverlay).
  const notePoolsChanged = (now: number): void => noteChange(now, 'pools');
  const workloads = new WorkloadController(cluster, () => notePending(clock.now()));
  const sweepEngine = options.sweep;
  let objectsVersion = 0;
  const signature = (): string => `${activity.changes}/${store.writes.length}/${objectsVersion}`;
  const driver = sweepEngine
    ? new DisruptionDriver(deps, activity, sweepEngine, options.disruptionOptions, signature)
    : undefined;
  const observer = new ViolationObserver(activity, {
    disrupting: () => driver?.disrupting ?? new Map(),
    pods: () => cluster.allPods(),
    pdbs: () => pdbs,
    nodePools: () => cluster.listNodePools(),
    claims: () => store.list(),
    now: () => clock.now(),
  });
  const pendingStarts: Promise<void>[] = [];
  driver?.onStart((nodes) => pendingStarts.push(observer.checkStart(nodes)));
  const lowerBound = new LowerBoundTracker(engine.lowerBound, (c) =>
    cloud.withWholeReservations(c, instanceTypesFor(c)),
  );
  const reclaims: { at: number; instanceId: string }[] = [];
  let interruptions = 0;

  const occurrences = expandSteps(scenario, start);
  let nextOccurrence = 0;
  let nextSweep = start + scenario.sweepEvery;
  let nextGc = start + GC_EVERY_MS;
  const sampleEvery = Math.max(scenario.sweepEvery, Math.ceil(scenario.until / MAX_SAMPLES / 1000) * 1000);
  let nextSample = start;
  let nodeBatchAt: number | undefined;
  let lastLowerBound = 0;

  const applyStep = async (step: ScenarioStep): Promise<void> => {
    try {
      await applyAction(step.action);
    } catch (err) {
      if (err instanceof ValidationError) throw err;
      throw new ValidationError([
        `${scenario.file}: ${step.path}: ${err instanceof Error ? err.message : String(err)}`,
      ]);
    }
  };

  const applyAction = async (action: StepAction): Promise<void> => {
    const now = clock.now();
    objectsVersion++;
    switch (action.type) {
      case 'apply':
        workloads.apply(action.set);
        if (action.set.nodePools.length + action.set.nodeClasses.length + action.set.nodeOverlays.length > 0) {
          notePoolsChanged(now);
        }
        for (const r of action.set.capacityReservations) addReservation(cloud, r, now);
        pdbs = await cluster.listPodDisruptionBudgets();
        if ((await cluster.listNodePools()).length === 0) {
          const fallback = engine.defaultNodePool();
          cluster.upsert(fallback.nodeClass);
          cluster.upsert(fallback.nodePool);
          warnings.push(`no NodePool applied: using the embedded default NodePool "${DEFAULT_NODEPOOL_NAME}"`);
        }
        break;
      case 'scale':
        workloads.scale(action.target, action.replicas);
        break;
      case 'scaleNodePool':
        await scaleNodePool(cluster, action.name, action.replicas);
        // The forwarder's NodePoolChanged hint: the provisioner adds or removes the static pool's nodes at once.
        await provision(deps, { trigger: 'NodePoolChanged', triggeredAt: new Date(now).toISOString() });
        break;
      case 'delete':
        for (const t of action.targets) {
          // `kubectl delete nodeoverlay`: the next read of the cluster prices without it (docs/api.md, NodeOverlay).
          if (t.kind === 'NodeOverlay') {
            if (!cluster.deleteNodeOverlay(t.name)) throw new Error(`NodeOverlay ${t.name} not found`);
            notePoolsChanged(now);
          } else if (t.kind === 'NodeClaim') {
            // `kubectl delete nodeclaim`: the deletion mark, then the forwarder's NodeClaimDeleted, which starts the
            // termination at once through the use-case the provisioner runs (docs/kubernetes.md, NodeClaim objects).
            if (!cluster.requestNodeClaimObjectDeletion(t.name)) throw new Error(`NodeClaim ${t.name} not found`);
            await handleControlMessage(deps, {
              v: 1,
              cluster: CLUSTER,
              kind: 'NodeClaimDeleted',
              at: new Date(now).toISOString(),
              refs: [{ kind: 'NodeClaim', name: t.name }],
            });
          } else if (t.kind === 'NodePool') {
            if (!cluster.deleteNodePool(t.name)) throw new Error(`NodePool ${t.name} not found`);
            // The forwarder's NodePoolChanged hint: the pool's nodes start terminating at once (docs/disruption.md,
            // Deleting a NodePool).
            const hint: ClusterMessage = {
              v: 1,
              cluster: CLUSTER,
              kind: 'NodePoolChanged',
              at: new Date(now).toISOString(),
              refs: [],
            };
            await handleControlMessage(deps, hint);
          } else workloads.delete(t);
        }
        break;
      case 'patch': {
        const list: (NodePool | EC2NodeClass)[] =
          action.target.kind === 'NodePool' ? await cluster.listNodePools() : await cluster.listNodeClasses();
        const current = list.find((o) => o.metadata.name === action.target.name);
        if (!current) throw new Error(`${action.target.kind} ${action.target.name} not found`);
        const merged = mergePatch(withoutImpliedWeight(current), action.mergePatch) as unknown as Record<
          string,
          unknown
        >;
        const errors: string[] = [];
        const { set } = buildManifestSet([{ file: `${scenario.file} patch`, doc: 1, raw: merged }], errors);
        if (errors.length > 0) throw new ValidationError(errors);
        const replaced = action.target.kind === 'NodePool' ? set.nodePools[0] : set.nodeClasses[0];
        if (replaced) cluster.upsert(replaced);
        notePoolsChanged(now);
        break;
      }
      case 'annotate':
      case 'label':
      case 'taint':
      case 'complete':
      case 'nodeCondition':
        if ((await applyObjectStep(cluster, action, new Date(now).toISOString())) === 0) {
          warnings.push(`${recorder.offset(now)}: ${action.type} matched no ${action.target.kind}`);
        }
        break;
      case 'seed':
        await applySeed({ cluster, cloud, store, clusterName: CLUSTER, now, instanceTypesFor }, action);
        break;
      case 'publishAmi':
      case 'retag':
      case 'kubernetesVersion':
        applyCloudStep(cloud.account, action);
        break;
      case 'capacityReservation':
        applyReservationStep(cloud, action, now);
        break;
      case 'interrupt': {
        const claims = (await store.list({ states: ['Launched', 'Registered', 'Initialized'] })).filter((c) =>
          action.nodeClaim
            ? c.name === action.nodeClaim
            : c.instanceType === action.instanceType &&
              (!action.zone || c.zone === action.zone) &&
              (!action.capacityType || c.capacityType === action.capacityType),
        );
        const ids = claims.flatMap((c) => (c.instanceId ? [c.instanceId] : []));
        if (ids.length === 0) {
          warnings.push(`${recorder.offset(now)}: interrupt matched no running NodeClaim`);
          break;
        }
        const deadline = now + SPOT_WARNING_MS;
        // EC2 warns an interruptible capacity reservation's instances with its own event, the rest as spot.
        const inInterruptible = new Set(
          claims.filter((c) => c.capacityReservation?.interruptible).flatMap((c) => c.instanceId ?? []),
        );
        const kinds = [
          ['CapacityReservationInterruption', ids.filter((id) => inInterruptible.has(id))],
          ['SpotInterruption', ids.filter((id) => !inInterruptible.has(id))],
        ] as const;
        for (const [kind, instanceIds] of kinds) {
          if (instanceIds.length === 0) continue;
          await handleInterruption(deps, {
            kind,
            instanceIds,
            deadline: new Date(deadline).toISOString(),
            eventId: `sim-interruption-${++interruptions}`,
            at: new Date(now).toISOString(),
          });
        }
        for (const instanceId of ids) reclaims.push({ at: deadline, instanceId });
        break;
      }
    }
  };

  /** The provisioner's nominations and the pods it could not place, from the events it recorded. */
  const recordNominations = async (): Promise<void> => {
    const nominated = new Map<string, number>();
    const unschedulable: { pod: string; reason: string }[] = [];
    for (const e of activity.newEvents()) {
      if (e.reason === 'FailedScheduling') {
        unschedulable.push({ pod: `${e.involved.namespace}/${e.involved.name}`, reason: e.message });
        continue;
      }
      if (e.reason !== 'Nominated') continue;
      const target = /on: (\S+)$/.exec(e.message)?.[1] ?? '?';
      nominated.set(target, (nominated.get(target) ?? 0) + 1);
    }
    const now = clock.now();
    const claims = nominated.size ? await store.list() : [];
    const claimOfNode = (node: string): string => claims.find((c) => c.nodeName === node)?.name ?? node;
    for (const [target, n] of nominated) {
      const claim = target.startsWith('node/') ? claimOfNode(target.slice(5)) : target.replace(/^nodeclaim\//, '');
      recorder.add(now, 'Nominated', claim, 'Provisioning', `${n} pod(s) nominated to ${target}`);
    }
    if (unschedulable.length > 0) {
      const first = unschedulable[0] as { pod: string; reason: string };
      recorder.add(
        now,
        'Unschedulable',
        '',
        'FailedScheduling',
        `${unschedulable.length} pod(s), e.g. ${first.pod}: ${first.reason}`,
      );
    }
  };

  // The store is read after every instant; it changes only on writes, so re-read only then.
  let claimsCache: { writes: number; claims: NodeClaim[] } | undefined;
  const claimsNow = async (): Promise<NodeClaim[]> => {
    if (claimsCache?.writes !== store.writes.length) {
      claimsCache = { writes: store.writes.length, claims: await store.list() };
    }
    return claimsCache.claims;
  };

  // Pods bound since the last instant was recorded, by node: kube-scheduler binds as nodes turn Ready (between
  // instants, on the clock) and as nominations arrive; Karpless's lifecycle binds too when bindPods is on.
  const boundSince = new Map<string, number>();
  cluster.onChange((c) => {
    if (c.type === 'pod-bound') boundSince.set(c.node, (boundSince.get(c.node) ?? 0) + 1);
  });

  progress(`scenario ${scenario.name}: ${occurrences.length} step(s) over ${recorder.offset(end)}`);
  for (let sameInstant = 0; ; ) {
    const now = clock.now();
    while (nextOccurrence < occurrences.length && (occurrences[nextOccurrence] as Occurrence).at <= now) {
      await applyStep((occurrences[nextOccurrence++] as Occurrence).step);
    }
    for (let i = reclaims.length - 1; i >= 0; i--) {
      const r = reclaims[i] as { at: number; instanceId: string };
      if (r.at > now) continue;
      reclaims.splice(i, 1);
      await cloud.delete(r.instanceId);
    }
    for (const body of queue.take()) await handleControlMessage(deps, parseControlMessage(body));
    if (activity.takeNodeChanged()) nodeBatchAt ??= now + NODE_BATCH_MS;
    if (nodeBatchAt !== undefined && nodeBatchAt <= now) {
      nodeBatchAt = undefined;
      await reconcileNodes(deps);
    }
    if (activity.takePending() > 0) notePending(now);
    const flushAt = batchFlushAt(batch);
    if (flushAt !== undefined && flushAt <= now) {
      const triggeredAt = new Date(batch.last ?? now).toISOString();
      const { pods, pools } = batch;
      Object.assign(batch, { first: undefined, last: undefined, pods: false, pools: false });
      // The forwarder's batch: PodsPending when pods turned pending, NodePoolChanged when a pool, class or overlay
      // changed, each handled as the provisioner handles it (NodePoolChanged also runs the NodePool deletion cascade).
      if (pods) await provision(deps, { trigger: 'PodsPending', triggeredAt });
      if (pools) {
        const at = new Date(now).toISOString();
        await handleControlMessage(deps, { v: 1, cluster: CLUSTER, kind: 'NodePoolChanged', at, refs: [] });
      }
    }
    await recordNominations();
    if (driver) await driver.progress();
    if (nextSweep <= now) {
      nextSweep += scenario.sweepEvery;
      const message: SweepMessage = { v: 1, cluster: CLUSTER, kind: 'Sweep', at: new Date(now).toISOString() };
      // The driver keeps its own account of the sweep (re-checks, metrics), so the dispatcher reports nothing.
      const sweep = async (): Promise<undefined> => {
        await driver?.sweep();
      };
      await handleControlMessage(deps, message, driver ? { sweep } : {});
      await recordNominations();
    }
    if (nextGc <= now) {
      nextGc += GC_EVERY_MS;
      await collectGarbage(deps);
      await syncReservedCapacityTypes(deps);
    }
    await Promise.all(pendingStarts.splice(0));
    const claims = await claimsNow();
    recorder.observeClaims(now, claims, (n) => driver?.replacementOf.get(n));
    for (const [node, n] of boundSince) {
      const claim = claims.find((c) => c.nodeName === node);
      recorder.add(now, 'Bound', claim?.name ?? node, 'Scheduled', `${n} pod(s) bound to ${node}`);
    }
    boundSince.clear();
    const pendingUids = (await cluster.listPendingPods()).map((p) => p.metadata.uid ?? p.metadata.name);
    const instances = await cloud.list();
    // Sampled before the pending pods are observed, so pods turning pending at a sample's instant count towards
    // that sample's peak, not the one before.
    if (nextSample <= now) {
      nextSample += sampleEvery;
      lastLowerBound = await lowerBound.compute(await lowerBoundInputs(cluster, claims));
      recorder.sample(now, instances, lastLowerBound, pendingUids.length);
    }
    recorder.observePending(now, pendingUids);

    const next = Math.min(
      occurrences[nextOccurrence]?.at ?? Number.POSITIVE_INFINITY,
      clock.nextDue() ?? Number.POSITIVE_INFINITY,
      queue.nextVisible() ?? Number.POSITIVE_INFINITY,
      nodeBatchAt ?? (activity.nodeChanged ? now : Number.POSITIVE_INFINITY),
      batchFlushAt(batch) ?? (activity.podsPending > 0 ? now : Number.POSITIVE_INFINITY),
      driver?.nextDue() ?? Number.POSITIVE_INFINITY,
      ...reclaims.map((r) => r.at),
      nextSweep,
      nextGc,
      nextSample,
    );
    if (next <= now) {
      // Work became due at this same instant (a message queued without delay): go round again, boundedly.
      if (++sameInstant < 20) continue;
    }
    sameInstant = 0;
    const target = Math.min(Math.max(next, now + 1), end);
    recorder.accrue(target - now, instances);
    if (now >= end) break;
    clock.advanceTo(target);
    if (options.onProgress && wall() >= nextReport) {
      nextReport = wall() + (options.progressEveryMs ?? PROGRESS_EVERY_MS);
      const done = Math.floor(((target - start) / scenario.until) * 100);
      const pending = (await cluster.listPendingPods()).length;
      progress(
        `scenario ${scenario.name}: ${recorder.offset(target)} of ${recorder.offset(end)} simulated (${done}%), ` +
          `${wallText()}; ${instances.length} node(s), ${pending} pod(s) pending`,
      );
    }
  }

  const claims = await store.list();
  recorder.observeClaims(clock.now(), claims, (n) => driver?.replacementOf.get(n));
  progress(
    `scenario ${scenario.name}: done, ${recorder.offset(end)} simulated in ${wallText()}, ` +
      `${recorder.timeline.length} timeline entries`,
  );
  return {
    scenario: scenario.name,
    seed,
    startedAt: SCENARIO_START,
    until: recorder.offset(end),
    timeline: recorder.timeline,
    costOverTime: recorder.costOverTime,
    fleetOverTime: recorder.fleetOverTime,
    pendingOverTime: recorder.pendingOverTime,
    totals: recorder.totals(clock.now(), activity.evictions),
    violations: { ...observer.counts },
    violationRecords: observer.records,
    disruptionTimes: recorder.disruptionTimes,
    warnings,
    world: { clock, cloud, cluster, store },
    finalLowerBoundPerHour: await lowerBound.compute(await lowerBoundInputs(cluster, claims)),
    commands: { started: driver?.commandsStarted ?? 0, dropped: driver?.commandsDropped ?? 0 },
    podRemovals,
  };
}

interface Occurrence {
  at: number;
  step: ScenarioStep;
}

const MAX_OCCURRENCES = 10_000;

/** Each step at its time, repeating ones at every period up to the end; ties keep file order. */
function expandSteps(scenario: Scenario, start: number): Occurrence[] {
  const out: (Occurrence & { order: number })[] = [];
  scenario.steps.forEach((step, order) => {
    for (
      let at = step.at;
      at <= scenario.until && out.length < MAX_OCCURRENCES;
      at += step.every ?? Number.POSITIVE_INFINITY
    ) {
      out.push({ at: start + at, step, order });
      if (!step.every) break;
    }
  });
  return out.sort((a, b) => a.at - b.at || a.order - b.order);
}

/** A NodePool without a weight is stored with the implied weight 0, which validation (1-100) would refuse when the
 * patched object is checked again; an EC2NodeClass is stored with the amiFamily its alias implies and that family's
 * default block devices, which would contradict a patched alias (windows2019 → windows2022). Drop what was implied
 * so the patched object reads as the user wrote it. */
function withoutImpliedWeight(o: NodePool | EC2NodeClass): NodePool | EC2NodeClass {
  if (o.kind === 'EC2NodeClass') return withoutImpliedFamily(o);
  if (o.kind !== 'NodePool' || o.spec.weight !== 0) return o;
  const { weight: _implied, ...spec } = o.spec;
  return { ...o, spec } as NodePool;
}

function withoutImpliedFamily(o: EC2NodeClass): EC2NodeClass {
  const implied = amiFamilyOf({ amiSelectorTerms: o.spec.amiSelectorTerms });
  if (!implied || o.spec.amiFamily !== implied) return o;
  const { amiFamily: _family, blockDeviceMappings, ...spec } = o.spec;
  const defaulted = JSON.stringify(blockDeviceMappings) === JSON.stringify(defaultBlockDeviceMappings(implied));
  return { ...o, spec: { ...spec, ...(defaulted ? {} : { blockDeviceMappings }) } };
}

/** The catalog's view through an EC2NodeClass is recomputed only when the class's spec changes. */
function memoByNodeClass(fn: (nodeClass: EC2NodeClass) => InstanceType[]): (nodeClass: EC2NodeClass) => InstanceType[] {
  const cache = new Map<string, InstanceType[]>();
  return (nodeClass) => {
    const key = `${nodeClass.metadata.name}/${specHash(nodeClass.spec)}`;
    let types = cache.get(key);
    if (!types) {
      types = fn(nodeClass);
      cache.set(key, types);
    }
    return types;
  };
}

function batchFlushAt(batch: { first?: number | undefined; last?: number | undefined }): number | undefined {
  if (batch.first === undefined || batch.last === undefined) return undefined;
  return Math.min(batch.last + BATCH_IDLE_MS, batch.first + BATCH_MAX_MS);
}

async function lowerBoundInputs(cluster: SimCluster, claims: NodeClaim[]) {
  const [nodes, nodePools, nodeClasses, daemonSets] = await Promise.all([
    cluster.listNodes(),
    cluster.listNodePools(),
    cluster.listNodeClasses(),
    cluster.listDaemonSets(),
  ]);
  return {
    pods: cluster.allPods(),
    nodeLabels: new Map(nodes.map((n) => [n.metadata.name, n.metadata.labels ?? {}])),
    claims,
    nodePools,
    nodeClasses,
    daemonSets,
  };
}
