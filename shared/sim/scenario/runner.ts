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

import { specHash } from '../../api/hash';
import type { EC2NodeClass } from '../../api/karpenter';
import type { NodeClaim } from '../../api/nodeclaim';
import type { InstanceType } from '../../catalog/types';
import {
  collectGarbage,
  handleControlMessage,
  provision,
  reconcileNodes,
  syncReservedCapacityTypes,
} from '../../controllers';
import type { DisruptionOptions } from '../../disruption';
import { parseControlMessage } from '../../events';
import type { SweepMessage } from '../../messages';
import type { CloudInstance } from '../../ports';
import { loadLpSolver } from '../../scheduling';
import type { SimCluster } from '../sim-cluster';
import type { SimulationEngine } from '../simulation';
import { createSimWorld, type SimWorld } from '../world';
import { ClusterActivity } from './activity';
import { DisruptionDriver, type SweepEngine } from './disruption-driver';
import { ForwarderBatch } from './forwarder-batch';
import { LowerBoundTracker } from './lower-bound';
import { recordNominations } from './nominations';
import { ViolationObserver, type ViolationRecord, type Violations } from './observer';
import {
  type CostSample,
  type FleetSample,
  type PendingSample,
  Recorder,
  type TimelineEntry,
  type Totals,
} from './recorder';
import type { StepContext } from './step-context';
import { applyStep } from './steps';
import type { Scenario, ScenarioStep } from './types';
import { GC_EVERY_MS } from './work';
import { WorkloadController } from './workloads';

export const SCENARIO_START = '2026-01-05T00:00:00.000Z';
const NODE_BATCH_MS = 1_000;
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
  return new ScenarioRunner(scenario, engine, options).run();
}

/** One run of a scenario: the world it drives, the observers that record it, and when each kind of work is next due. */
class ScenarioRunner {
  private readonly seed: number;
  private readonly ctx: StepContext;
  private readonly world: SimWorld;
  private readonly start: number;
  private readonly end: number;
  private readonly activity: ClusterActivity;
  private readonly recorder: Recorder;
  private readonly podRemovals: ScenarioRun['podRemovals'] = [];
  private readonly driver: DisruptionDriver | undefined;
  private readonly observer: ViolationObserver;
  private readonly pendingStarts: Promise<void>[] = [];
  private readonly lowerBound: LowerBoundTracker;
  private readonly occurrences: Occurrence[];
  private nextOccurrence = 0;
  private nextSweep: number;
  private nextGc: number;
  private readonly sampleEvery: number;
  private nextSample: number;
  private nodeBatchAt: number | undefined;
  private lastLowerBound = 0;
  /** The store is read after every instant; it changes only on writes, so re-read only then. */
  private claimsCache: { writes: number; claims: NodeClaim[] } | undefined;
  /** Pods bound since the last instant was recorded, by node: kube-scheduler binds as nodes turn Ready (between
   * instants, on the clock) and as nominations arrive; Karpless's lifecycle binds too when bindPods is on. */
  private readonly boundSince = new Map<string, number>();
  private readonly progress: (message: string) => void;
  private readonly wall: () => number;
  private readonly wallStart: number;
  private nextReport: number;

  constructor(
    private readonly scenario: Scenario,
    engine: SimulationEngine,
    private readonly options: ScenarioOptions,
  ) {
    this.seed = options.seed ?? 1;
    this.progress = options.onProgress ?? (() => {});
    this.wall = options.wallClock ?? (() => performance.now());
    this.wallStart = this.wall();
    this.nextReport = this.wallStart + (options.progressEveryMs ?? PROGRESS_EVERY_MS);
    const instanceTypesFor = memoByNodeClass(engine.instanceTypesFor);
    this.world = scenarioWorld(scenario, engine, this.seed, instanceTypesFor);
    const { clock, cloud, cluster, store, deps } = this.world;
    this.start = clock.now();
    this.end = this.start + scenario.until;
    this.activity = new ClusterActivity(cluster, clock);
    this.recorder = new Recorder(this.start);
    this.activity.onRemoval((r) =>
      this.podRemovals.push({
        at: this.recorder.offset(clock.now()),
        pod: `${r.pod.metadata.namespace}/${r.pod.metadata.name}`,
        node: r.node,
        how: r.how,
      }),
    );
    const batch = new ForwarderBatch();
    this.ctx = {
      scenarioFile: scenario.file,
      clusterName: CLUSTER,
      world: this.world,
      engine,
      instanceTypesFor,
      workloads: new WorkloadController(cluster, () => batch.notePending(clock.now())),
      batch,
      recorder: this.recorder,
      warnings: [...scenario.warnings],
      pdbs: [],
      objectsVersion: 0,
      reclaims: [],
      interruptions: 0,
    };
    const signature = (): string => `${this.activity.changes}/${store.writes.length}/${this.ctx.objectsVersion}`;
    this.driver = options.sweep
      ? new DisruptionDriver(deps, this.activity, options.sweep, options.disruptionOptions, signature)
      : undefined;
    this.observer = this.violationObserver();
    this.driver?.onStart((nodes) => this.pendingStarts.push(this.observer.checkStart(nodes)));
    this.lowerBound = new LowerBoundTracker(engine.lowerBound, (c) =>
      cloud.withWholeReservations(c, instanceTypesFor(c)),
    );
    this.occurrences = expandSteps(scenario, this.start);
    this.nextSweep = this.start + scenario.sweepEvery;
    this.nextGc = this.start + GC_EVERY_MS;
    this.sampleEvery = Math.max(scenario.sweepEvery, Math.ceil(scenario.until / MAX_SAMPLES / 1000) * 1000);
    this.nextSample = this.start;
    cluster.onChange((c) => {
      if (c.type === 'pod-bound') this.boundSince.set(c.node, (this.boundSince.get(c.node) ?? 0) + 1);
    });
  }

  private violationObserver(): ViolationObserver {
    const { clock, cluster, store } = this.world;
    return new ViolationObserver(this.activity, {
      disrupting: () => this.driver?.disrupting ?? new Map(),
      pods: () => cluster.allPods(),
      pdbs: () => this.ctx.pdbs,
      nodePools: () => cluster.listNodePools(),
      claims: () => store.list(),
      now: () => clock.now(),
    });
  }

  async run(): Promise<ScenarioRun> {
    const { clock } = this.world;
    const { scenario, recorder, end } = this;
    this.progress(`scenario ${scenario.name}: ${this.occurrences.length} step(s) over ${recorder.offset(end)}`);
    for (let sameInstant = 0; ; ) {
      const now = clock.now();
      await this.deliverDue(now);
      await this.runBatches(now);
      await this.runTimers(now);
      const instances = await this.observe(now);
      const next = this.nextDue(now);
      if (next <= now) {
        // Work became due at this same instant (a message queued without delay): go round again, boundedly.
        if (++sameInstant < 20) continue;
      }
      sameInstant = 0;
      const target = Math.min(Math.max(next, now + 1), end);
      recorder.accrue(target - now, instances);
      if (now >= end) break;
      clock.advanceTo(target);
      await this.reportProgress(target, instances.length);
    }
    return this.result();
  }

  /** The steps, reclaims and queued messages due by now. */
  private async deliverDue(now: number): Promise<void> {
    const { cloud, queue, deps } = this.world;
    while (
      this.nextOccurrence < this.occurrences.length &&
      (this.occurrences[this.nextOccurrence] as Occurrence).at <= now
    ) {
      await applyStep(this.ctx, (this.occurrences[this.nextOccurrence++] as Occurrence).step);
    }
    const reclaims = this.ctx.reclaims;
    for (let i = reclaims.length - 1; i >= 0; i--) {
      const r = reclaims[i] as { at: number; instanceId: string };
      if (r.at > now) continue;
      reclaims.splice(i, 1);
      await cloud.delete(r.instanceId);
    }
    for (const body of queue.take()) await handleControlMessage(deps, parseControlMessage(body));
  }

  /** The node batch (lifecycle) and the forwarder's batch of pending pods and pool changes, once due. */
  private async runBatches(now: number): Promise<void> {
    const { deps } = this.world;
    const batch = this.ctx.batch;
    if (this.activity.takeNodeChanged()) this.nodeBatchAt ??= now + NODE_BATCH_MS;
    if (this.nodeBatchAt !== undefined && this.nodeBatchAt <= now) {
      this.nodeBatchAt = undefined;
      await reconcileNodes(deps);
    }
    if (this.activity.takePending() > 0) batch.notePending(now);
    const flushAt = batch.flushAt();
    if (flushAt !== undefined && flushAt <= now) {
      const { pods, pools, last } = batch.take();
      const triggeredAt = new Date(last ?? now).toISOString();
      // The forwarder's batch: PodsPending when pods turned pending, NodePoolChanged when a pool, class or overlay
      // changed, each handled as the provisioner handles it (NodePoolChanged also runs the NodePool deletion cascade).
      if (pods) await provision(deps, { trigger: 'PodsPending', triggeredAt });
      if (pools) {
        const at = new Date(now).toISOString();
        await handleControlMessage(deps, { v: 1, cluster: CLUSTER, kind: 'NodePoolChanged', at, refs: [] });
      }
    }
  }

  /** The provisioner's nominations, the disruption driver, and the sweep and garbage collection on their periods. */
  private async runTimers(now: number): Promise<void> {
    const { deps } = this.world;
    const driver = this.driver;
    await this.recordNominations();
    if (driver) await driver.progress();
    if (this.nextSweep <= now) {
      this.nextSweep += this.scenario.sweepEvery;
      const message: SweepMessage = { v: 1, cluster: CLUSTER, kind: 'Sweep', at: new Date(now).toISOString() };
      // The driver keeps its own account of the sweep (re-checks, metrics), so the dispatcher reports nothing.
      const sweep = async (): Promise<undefined> => {
        await driver?.sweep();
      };
      await handleControlMessage(deps, message, driver ? { sweep } : {});
      await this.recordNominations();
    }
    if (this.nextGc <= now) {
      this.nextGc += GC_EVERY_MS;
      await collectGarbage(deps);
      await syncReservedCapacityTypes(deps);
    }
  }

  private recordNominations(): Promise<void> {
    return recordNominations(this.activity, this.world.store, this.recorder, this.world.clock.now());
  }

  /** Records the instant: claims, pods bound, pending pods and, when due, a sample. Returns the running instances. */
  private async observe(now: number): Promise<CloudInstance[]> {
    const { cloud, cluster } = this.world;
    const recorder = this.recorder;
    await Promise.all(this.pendingStarts.splice(0));
    const claims = await this.claimsNow();
    recorder.observeClaims(now, claims, (n) => this.driver?.replacementOf.get(n));
    for (const [node, n] of this.boundSince) {
      const claim = claims.find((c) => c.nodeName === node);
      recorder.add(now, 'Bound', claim?.name ?? node, 'Scheduled', `${n} pod(s) bound to ${node}`);
    }
    this.boundSince.clear();
    const pendingUids = (await cluster.listPendingPods()).map((p) => p.metadata.uid ?? p.metadata.name);
    const instances = await cloud.list();
    // Sampled before the pending pods are observed, so pods turning pending at a sample's instant count towards
    // that sample's peak, not the one before.
    if (this.nextSample <= now) {
      this.nextSample += this.sampleEvery;
      this.lastLowerBound = await this.lowerBound.compute(await lowerBoundInputs(cluster, claims));
      recorder.sample(now, instances, this.lastLowerBound, pendingUids.length);
    }
    recorder.observePending(now, pendingUids);
    return instances;
  }

  private async claimsNow(): Promise<NodeClaim[]> {
    const store = this.world.store;
    if (this.claimsCache?.writes !== store.writes.length) {
      this.claimsCache = { writes: store.writes.length, claims: await store.list() };
    }
    return this.claimsCache.claims;
  }

  /** The next instant any work is due. */
  private nextDue(now: number): number {
    const { clock, queue } = this.world;
    const activity = this.activity;
    return Math.min(
      this.occurrences[this.nextOccurrence]?.at ?? Number.POSITIVE_INFINITY,
      clock.nextDue() ?? Number.POSITIVE_INFINITY,
      queue.nextVisible() ?? Number.POSITIVE_INFINITY,
      this.nodeBatchAt ?? (activity.nodeChanged ? now : Number.POSITIVE_INFINITY),
      this.ctx.batch.flushAt() ?? (activity.podsPending > 0 ? now : Number.POSITIVE_INFINITY),
      this.driver?.nextDue() ?? Number.POSITIVE_INFINITY,
      ...this.ctx.reclaims.map((r) => r.at),
      this.nextSweep,
      this.nextGc,
      this.nextSample,
    );
  }

  private async reportProgress(target: number, nodes: number): Promise<void> {
    if (!this.options.onProgress || this.wall() < this.nextReport) return;
    this.nextReport = this.wall() + (this.options.progressEveryMs ?? PROGRESS_EVERY_MS);
    const { scenario, recorder, end } = this;
    const done = Math.floor(((target - this.start) / scenario.until) * 100);
    const pending = (await this.world.cluster.listPendingPods()).length;
    this.progress(
      `scenario ${scenario.name}: ${recorder.offset(target)} of ${recorder.offset(end)} simulated (${done}%), ` +
        `${this.wallText()}; ${nodes} node(s), ${pending} pod(s) pending`,
    );
  }

  private wallText(): string {
    return `${((this.wall() - this.wallStart) / 1000).toFixed(1)} s wall`;
  }

  private async result(): Promise<ScenarioRun> {
    const { clock, cloud, cluster, store } = this.world;
    const { scenario, recorder, end, driver } = this;
    const claims = await store.list();
    recorder.observeClaims(clock.now(), claims, (n) => driver?.replacementOf.get(n));
    this.progress(
      `scenario ${scenario.name}: done, ${recorder.offset(end)} simulated in ${this.wallText()}, ` +
        `${recorder.timeline.length} timeline entries`,
    );
    return {
      scenario: scenario.name,
      seed: this.seed,
      startedAt: SCENARIO_START,
      until: recorder.offset(end),
      timeline: recorder.timeline,
      costOverTime: recorder.costOverTime,
      fleetOverTime: recorder.fleetOverTime,
      pendingOverTime: recorder.pendingOverTime,
      totals: recorder.totals(clock.now(), this.activity.evictions),
      violations: { ...this.observer.counts },
      violationRecords: this.observer.records,
      disruptionTimes: recorder.disruptionTimes,
      warnings: this.ctx.warnings,
      world: { clock, cloud, cluster, store },
      finalLowerBoundPerHour: await this.lowerBound.compute(await lowerBoundInputs(cluster, claims)),
      commands: { started: driver?.commandsStarted ?? 0, dropped: driver?.commandsDropped ?? 0 },
      podRemovals: this.podRemovals,
    };
  }
}

/** The simulated world a scenario runs on: nodes register and turn Ready over `nodeReadyAfter`. */
function scenarioWorld(
  scenario: Scenario,
  engine: SimulationEngine,
  seed: number,
  instanceTypesFor: (nodeClass: EC2NodeClass) => InstanceType[],
): SimWorld {
  const readyPart = Math.min(15_000, Math.round(scenario.nodeReadyAfter / 3));
  return createSimWorld({
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
