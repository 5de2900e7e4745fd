// The local pipeline: the real Lambda handlers (functions/*/handler.ts, with injected ports) wired as the stack
// wires them (stacks/functions.ts): the cluster FIFO queue into the provisioner, the standard interruption queue into
// interruption, the standard termination queue into termination, and scheduled ticks into gc and (as Sweep messages)
// the FIFO queue. Behind the ports: the simulated cluster and cloud on a virtual clock, dynalite as DynamoDB, and
// in-memory SQS with each queue's DLQ and maxReceiveCount; each consumer sends poison messages straight to its DLQ. The real forwarder batching feeds the FIFO queue from the
// simulated cluster's changes. Time is virtual; handlers run for real, so their wall-clock cost can be measured.
import type { Context, SQSEvent } from 'aws-lambda';
import type { BatchTiming } from '../forwarder/batch-window';
import type { KubeHttp } from '../forwarder/kube-http';
import { ListWatch, WATCHED } from '../forwarder/list-watch';
import type { ControlPlanePorts } from '../functions/_wiring/ports';
import { createHandler as createGc } from '../functions/gc/handler';
import { createHandler as createInterruption } from '../functions/interruption/handler';
import { createObservability } from '../functions/middleware';
import { fakeContext } from '../functions/middleware/fake-context';
import { createHandler as createProvisioner } from '../functions/provisioner/handler';
import { createHandler as createTermination } from '../functions/termination/handler';
import type { NodeClaim } from '../shared/api/nodeclaim';
import type { NodeClaimObject } from '../shared/api/nodeclaim-object';
import { DynamoNodeClaimStore } from '../shared/aws/dynamo/store';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import type { ControlPlaneConfig } from '../shared/controllers';
import type { ClusterApi, NodeClaimStore } from '../shared/ports';
import type { SimCloud, SimCluster, VirtualClock } from '../shared/sim';
import { MemoryNodeClaimStore } from '../shared/sim';
import { MemoryQueue, MemoryWorkQueue, memoryDeadLetter, type PollResult, QueuePoller } from '../shared/sim/sqs';
import { createSimWorld } from '../shared/sim/world';
import { FUNCTION_NAMES, type FunctionName } from '../stacks/functions';
import { auditPipeline, type PipelineAudit } from './audit';
import { ForwarderFeed } from './forwarder-feed';
import { InstrumentedCloud, type SimulatedCrash } from './instrumented-cloud';
import { captureJsonLines, isMetricsRecord, type LogRecord } from './log-capture';
import { ObservedStore } from './observed-store';

/** Lambda functions as the pipeline runs them: the deployed ones. */
export type PipelineFunction = FunctionName;

/** Every function with a handler module: the deployed ones. */
export type InvokableFunction = PipelineFunction;
export const INVOKABLE_FUNCTIONS: readonly InvokableFunction[] = FUNCTION_NAMES;

/** maxReceiveCount per queue, as stacks/constructs/queues.ts sets it. */
export const MAX_RECEIVE = { events: 5, interruption: 3, termination: 10 } as const;
/** Visibility timeouts: twice the consumer's timeout plus 30 s, as stacks/cluster-stack.ts computes them. */
export const VISIBILITY_SECONDS = { events: 270, interruption: 270, termination: 150 } as const;

export interface LocalPipelineOptions {
  cluster?: string;
  seed?: number;
  /** Parsed objects to load into the simulated cluster (pods, NodePools, EC2NodeClasses, DaemonSets, PDBs, ...). */
  objects: Iterable<{ kind?: string }>;
  start?: string;
  registrationDelayMs?: number;
  readyDelayMs?: number;
  batchTiming?: BatchTiming;
  sweepEveryMs?: number;
  gcEveryMs?: number;
  config?: Partial<ControlPlaneConfig>;
  /** dynalite (the default) or the in-memory store. */
  store?: 'dynalite' | 'memory';
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Every Powertools log line (EMF metric blobs excluded) the handlers print. */
  onLog?: (record: LogRecord) => void;
  onTimeline?: (entry: TimelineEntry) => void;
  /** Where the handlers mirror NodeClaim objects (docs/kubernetes.md, NodeClaim objects): the simulated cluster by
   * default; test/e2e passes the real Kubernetes adapter on the fake API server, so the objects go through HTTP. */
  nodeClaimObjects?: NodeClaimObjectApi;
  /** The API server holding `nodeClaimObjects`: the forwarder's real NodeClaim list-watch (forwarder/list-watch.ts)
   * runs against it and feeds the batching, so a `kubectl delete nodeclaim` there reaches the provisioner as a
   * NodeClaimDeleted. Its events arrive in real time; `forwarder.waiting` shows when one is in. */
  nodeClaimWatch?: KubeHttp;
  /** Every EMF metrics flush the handlers print (measurements: bench/after-solve-reserve.ts). */
  onMetrics?: (record: LogRecord) => void;
}

/** The three NodeClaim-object methods of the cluster port. */
export type NodeClaimObjectApi = Required<
  Pick<ClusterApi, 'listNodeClaimObjects' | 'writeNodeClaimObject' | 'deleteNodeClaimObject'>
>;

/** The cluster port with its NodeClaim-object methods served by `objects`, everything else by `kube`. */
function withNodeClaimObjects(kube: ClusterApi, objects: NodeClaimObjectApi): ClusterApi {
  const own: Record<string, unknown> = {
    listNodeClaimObjects: () => objects.listNodeClaimObjects(),
    writeNodeClaimObject: (d: NodeClaimObject, c: NodeClaimObject | undefined) => objects.writeNodeClaimObject(d, c),
    deleteNodeClaimObject: (name: string) => objects.deleteNodeClaimObject(name),
  };
  return new Proxy(kube, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in own) return own[prop];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface TimelineEntry {
  /** Virtual epoch ms. */
  at: number;
  kind:
    | 'batch-sent'
    | 'claim'
    | 'instance-launched'
    | 'instance-terminated'
    | 'node-registered'
    | 'node-ready'
    | 'node-deleted'
    | 'pod-bound'
    | 'pod-evicted'
    | 'pod-pending'
    | 'invocation-failed'
    | 'dead-letter';
  text: string;
  subject?: string;
  detail?: string;
}

export interface Invocation {
  fn: PipelineFunction;
  at: number;
  received: number;
  failed: number;
  handlerMs: number;
  error?: string;
}

interface Queues {
  events: MemoryQueue;
  eventsDlq: MemoryQueue;
  interruption: MemoryQueue;
  interruptionDlq: MemoryQueue;
  termination: MemoryQueue;
  terminationDlq: MemoryQueue;
}

type SqsLambda = (event: SQSEvent, context: Context) => Promise<unknown>;

export class LocalPipeline {
  readonly cluster: string;
  readonly clock: VirtualClock;
  readonly sim: SimCluster;
  readonly simCloud: SimCloud;
  readonly cloud: InstrumentedCloud;
  readonly store: NodeClaimStore;
  readonly queues: Queues;
  readonly forwarder: ForwarderFeed;
  readonly ports: ControlPlanePorts;
  /** The ports each function runs on: the shared ones, plus its consumed queue's DLQ for an SQS consumer. */
  private readonly functionPorts: Record<PipelineFunction, ControlPlanePorts>;
  readonly timeline: TimelineEntry[] = [];
  readonly invocations: Invocation[] = [];
  readonly logs: LogRecord[] = [];
  private readonly pollers: Record<'events' | 'interruption' | 'termination', QueuePoller>;
  private handlers: {
    provisioner: SqsLambda;
    interruption: SqsLambda;
    termination: SqsLambda;
    gc: (tick: unknown, c: Context) => Promise<unknown>;
  };
  private crash: ((error: SimulatedCrash) => void) | undefined;
  private nextSweep: number;
  private nextGc: number;
  private claimStates = new Map<string, string>();
  private restoreOutput: (() => void) | undefined;
  private stopStore: (() => Promise<void>) | undefined;
  private nodeClaimWatch: { watch: ListWatch; running: Promise<void> } | undefined;

  private constructor(
    private readonly options: LocalPipelineOptions,
    store: NodeClaimStore,
  ) {
    this.cluster = options.cluster ?? 'demo';
    const catalog = loadCatalog();
    let queues: Queues | undefined;
    const world = createSimWorld({
      cluster: this.cluster,
      seed: options.seed ?? 1,
      start: options.start ?? '2026-11-21T21:00:00Z',
      instanceTypes: (nodeClass) => instanceTypesFor(catalog, nodeClass),
      ...(options.registrationDelayMs !== undefined ? { registrationDelayMs: options.registrationDelayMs } : {}),
      ...(options.readyDelayMs !== undefined ? { readyDelayMs: options.readyDelayMs } : {}),
      objects: options.objects,
      store: () => store,
      queue: (clock) => {
        queues = createQueues(clock);
        return new MemoryWorkQueue(queues.events);
      },
      ...(options.config ? { config: options.config } : {}),
    });
    this.clock = world.clock;
    this.simCloud = world.cloud;
    this.sim = world.cluster;
    this.cloud = new InstrumentedCloud(
      this.simCloud,
      () => this.clock.now(),
      (e) => this.crash?.(e),
    );
    this.store = store;
    this.queues = queues as Queues;
    const { log: _log, metric: _metric, ...ports } = world.deps;
    this.ports = {
      ...ports,
      ...(options.nodeClaimObjects ? { kube: withNodeClaimObjects(ports.kube, options.nodeClaimObjects) } : {}),
      cloud: this.cloud,
      // Claim writes reach the timeline as they happen; the diff after each invocation catches the rest.
      store: new ObservedStore(store, (c) => this.recordClaim(c)),
      terminationQueue: new MemoryWorkQueue(this.queues.termination),
    };
    const withDlq = (dlq: MemoryQueue): ControlPlanePorts => ({ ...this.ports, deadLetter: memoryDeadLetter(dlq) });
    this.functionPorts = {
      provisioner: withDlq(this.queues.eventsDlq),
      interruption: withDlq(this.queues.interruptionDlq),
      termination: withDlq(this.queues.terminationDlq),
      gc: this.ports,
    };
    this.handlers = this.buildHandlers();
    this.pollers = {
      events: new QueuePoller(this.queues.events, (e) => this.invoke('provisioner', e), { batchSize: 10 }),
      interruption: new QueuePoller(this.queues.interruption, (e) => this.invoke('interruption', e), { batchSize: 10 }),
      termination: new QueuePoller(this.queues.termination, (e) => this.invoke('termination', e), { batchSize: 5 }),
    };
    this.forwarder = new ForwarderFeed({
      cluster: this.cluster,
      sim: this.sim,
      clock: this.clock,
      queue: this.queues.events,
      ...(options.batchTiming ? { timing: options.batchTiming } : {}),
      onSend: (m, accepted) =>
        this.note(
          'batch-sent',
          `${m.kind} ×${m.keys.length} sent to the FIFO queue${accepted ? '' : ' (deduplicated)'}`,
        ),
    });
    this.nextSweep = this.clock.now() + (options.sweepEveryMs ?? 60_000);
    this.nextGc = this.clock.now() + (options.gcEveryMs ?? 60_000);
    this.wireTimeline();
  }

  static async create(options: LocalPipelineOptions): Promise<LocalPipeline> {
    const cluster = options.cluster ?? 'demo';
    let store: NodeClaimStore;
    let stop: (() => Promise<void>) | undefined;
    const clockHolder: { now(): number } = { now: () => pipeline.clock.now() };
    if ((options.store ?? 'dynalite') === 'dynalite') {
      const { startLocalDynamo } = await import('../shared/aws/dynamo/local');
      const local = await startLocalDynamo(`karpless-${cluster}`);
      store = new DynamoNodeClaimStore({
        tableName: local.tableName,
        cluster,
        client: local.client,
        clock: clockHolder,
      });
      stop = local.stop;
    } else {
      store = new MemoryNodeClaimStore({ cluster, clock: clockHolder });
    }
    const pipeline = new LocalPipeline(options, store);
    pipeline.stopStore = stop;
    pipeline.restoreOutput = captureJsonLines((record) => {
      if (isMetricsRecord(record)) {
        options.onMetrics?.(record);
        return;
      }
      pipeline.logs.push(record);
      options.onLog?.(record);
    });
    await pipeline.forwarder.start();
    if (options.nodeClaimWatch) {
      const source = WATCHED.find((w) => w.resource === 'nodeclaims');
      if (!source) throw new Error('local pipeline: the forwarder watches no NodeClaims');
      const watch = new ListWatch(options.nodeClaimWatch, source, pipeline.forwarder.watchHandlers());
      pipeline.nodeClaimWatch = { watch, running: watch.run() };
    }
    return pipeline;
  }

  /** No more Sweep ticks (a test proving that a path does not wait for one). */
  stopSweeps(): void {
    this.nextSweep = Number.POSITIVE_INFINITY;
  }

  async stop(): Promise<void> {
    if (this.nodeClaimWatch) {
      this.nodeClaimWatch.watch.stop();
      this.options.nodeClaimWatch?.close();
      await this.nodeClaimWatch.running;
      this.nodeClaimWatch = undefined;
    }
    this.restoreOutput?.();
    this.restoreOutput = undefined;
    await this.stopStore?.();
    this.stopStore = undefined;
  }

  /** A fresh container for every function, as Lambda starts after a crash. */
  private buildHandlers() {
    const obs = (service: string) =>
      createObservability({ cluster: this.cluster, service, logLevel: this.options.logLevel ?? 'INFO' });
    const factory = (fn: PipelineFunction) => () => this.functionPorts[fn];
    return {
      provisioner: createProvisioner(factory('provisioner'), obs('provisioner')) as unknown as SqsLambda,
      interruption: createInterruption(factory('interruption'), obs('interruption')) as unknown as SqsLambda,
      termination: createTermination(factory('termination'), obs('termination')) as unknown as SqsLambda,
      gc: createGc(factory('gc'), obs('gc')) as unknown as (tick: unknown, c: Context) => Promise<unknown>,
    };
  }

  /** A new provisioner handler with its own container (for concurrency tests: two invocations at once). */
  newProvisionerHandler(): SqsLambda {
    return createProvisioner(
      () => this.functionPorts.provisioner,
      createObservability({ cluster: this.cluster, service: 'provisioner', logLevel: this.options.logLevel ?? 'INFO' }),
    ) as unknown as SqsLambda;
  }

  /** A fresh handler (its own container) of any function, on the pipeline's ports: for `karpless invoke`. */
  // A fixture invoked directly comes from no queue, so no DLQ is wired: a poison record shows as a batch item failure.
  handlerFor(fn: InvokableFunction): (event: unknown, context: Context) => Promise<unknown> {
    const factory = () => this.ports;
    const obs = createObservability({ cluster: this.cluster, service: fn, logLevel: this.options.logLevel ?? 'INFO' });
    const create = {
      provisioner: createProvisioner,
      interruption: createInterruption,
      termination: createTermination,
      gc: createGc,
    }[fn] as (f: typeof factory, o: typeof obs) => unknown;
    return create(factory, obs) as (event: unknown, context: Context) => Promise<unknown>;
  }

  context(fn: InvokableFunction): Context {
    return fakeContext(() => 120_000, `karpless-${this.cluster}-${fn}`);
  }

  /** Runs one invocation; a crash fault fails it the way a dead process does (no response at all). */
  private async invoke(fn: 'provisioner' | 'interruption' | 'termination', event: SQSEvent): Promise<unknown> {
    const crashed = new Promise<never>((_, reject) => {
      this.crash = reject;
    });
    this.cloud.invocationStartedAt = performance.now();
    try {
      return await Promise.race([this.handlers[fn](event, this.context(fn)), crashed]);
    } catch (error) {
      if (error instanceof Error && error.name === 'SimulatedCrash') this.handlers = this.buildHandlers();
      throw error;
    } finally {
      this.crash = undefined;
      await this.recordClaimChanges();
    }
  }

  /** Sends an EventBridge event (an EC2 or Health event) to the interruption queue. */
  sendInterruption(event: unknown): void {
    this.queues.interruption.send({ body: JSON.stringify(event) });
  }

  /** Sends a raw body to the cluster FIFO queue (tests: duplicates, poison messages). */
  sendToEvents(body: string, deduplicationId: string): boolean {
    return this.queues.events.send({ body, groupId: this.cluster, deduplicationId }).accepted;
  }

  /** Runs until `ms` of virtual time has passed. */
  async runFor(ms: number): Promise<void> {
    await this.runUntil(() => false, ms);
  }

  /** Runs until `done` holds after the work of a moment is finished, or `limitMs` of virtual time passed; returns
   * whether `done` held. */
  async runUntil(done: () => boolean | Promise<boolean>, limitMs: number): Promise<boolean> {
    const end = this.clock.now() + limitMs;
    for (let i = 0; i < 100_000; i++) {
      await this.settleNow();
      if (await done()) return true;
      if (this.clock.now() >= end) return false;
      const candidates = [
        this.clock.nextDue(),
        this.forwarder.deadline(),
        this.queues.events.nextVisibleAt(),
        this.queues.interruption.nextVisibleAt(),
        this.queues.termination.nextVisibleAt(),
        this.nextSweep,
        this.nextGc,
        end,
      ].filter((t): t is number => t !== undefined);
      this.clock.advanceTo(Math.max(this.clock.now(), Math.min(...candidates)));
    }
    throw new Error('local pipeline: no progress after 100000 steps');
  }

  /** Does everything due at the current virtual time: forwarder flush, schedules, and every queue until idle. */
  async settleNow(): Promise<void> {
    for (let round = 0; round < 1_000; round++) {
      let progressed = this.forwarder.flushIfDue().length > 0;
      if (this.clock.now() >= this.nextSweep) {
        this.nextSweep += this.options.sweepEveryMs ?? 60_000;
        const at = this.clock.iso();
        this.queues.events.send({
          body: JSON.stringify({ v: 1, cluster: this.cluster, kind: 'Sweep', at }),
          groupId: this.cluster,
          deduplicationId: `sweep-${at}`,
        });
        progressed = true;
      }
      if (this.clock.now() >= this.nextGc) {
        this.nextGc += this.options.gcEveryMs ?? 60_000;
        await this.runGc();
        progressed = true;
      }
      for (const name of ['events', 'interruption', 'termination'] as const) {
        const result = await this.pollers[name].pollOnce();
        if (result.received > 0) {
          progressed = true;
          this.recordInvocation(name, result);
        }
      }
      this.checkDeadLetters();
      if (!progressed) return;
    }
  }

  /** One scheduled GC invocation. */
  async runGc(): Promise<unknown> {
    const started = performance.now();
    const tick = { v: 1, cluster: this.cluster, kind: 'GarbageCollect', at: this.clock.iso() };
    try {
      const out = await this.handlers.gc(tick, this.context('gc'));
      this.invocations.push({
        fn: 'gc',
        at: this.clock.now(),
        received: 1,
        failed: 0,
        handlerMs: performance.now() - started,
      });
      return out;
    } catch (error) {
      this.invocations.push({
        fn: 'gc',
        at: this.clock.now(),
        received: 1,
        failed: 1,
        handlerMs: performance.now() - started,
        error: String(error),
      });
      this.note('invocation-failed', `gc failed: ${String(error)}`);
      return undefined;
    } finally {
      await this.recordClaimChanges();
    }
  }

  audit(): Promise<PipelineAudit> {
    return auditPipeline(this.sim, this.simCloud, this.store);
  }

  private recordInvocation(queue: 'events' | 'interruption' | 'termination', r: PollResult): void {
    const fn: PipelineFunction = queue === 'events' ? 'provisioner' : queue;
    this.invocations.push({
      fn,
      at: this.clock.now(),
      received: r.received,
      failed: r.failed.length,
      handlerMs: r.handlerMs,
      ...(r.error !== undefined ? { error: r.error instanceof Error ? r.error.message : String(r.error) } : {}),
    });
    if (r.error !== undefined) {
      this.note(
        'invocation-failed',
        `${fn} invocation failed: ${r.error instanceof Error ? r.error.message : String(r.error)}`,
      );
    }
  }

  private deadLettered = { eventsDlq: 0, interruptionDlq: 0, terminationDlq: 0 };

  private checkDeadLetters(): void {
    for (const name of ['eventsDlq', 'interruptionDlq', 'terminationDlq'] as const) {
      const held = this.queues[name].peek();
      for (const m of held.slice(this.deadLettered[name])) {
        this.note(
          'dead-letter',
          `message ${m.messageId} moved to ${this.queues[name].name}`,
          m.messageId,
          m.body.slice(0, 120),
        );
      }
      this.deadLettered[name] = held.length;
    }
  }

  private async recordClaimChanges(): Promise<void> {
    for (const c of await this.store.list()) this.recordClaim(c);
  }

  private recordClaim(c: NodeClaim): void {
    if (this.claimStates.get(c.name) === c.state) return;
    const first = !this.claimStates.has(c.name);
    this.claimStates.set(c.name, c.state);
    const where = c.instanceType ? ` (${[c.instanceType, c.capacityType, c.zone].filter(Boolean).join(' ')})` : '';
    const what = first
      ? `claim ${c.name} created: NodePool ${c.nodePool}, ${c.nominatedPods.length} pod(s) nominated${c.state === 'Pending' ? '' : ` → ${c.state}${where}`}`
      : `claim ${c.name} → ${c.state}${where}`;
    this.note('claim', what, c.name, c.state);
  }

  private wireTimeline(): void {
    this.simCloud.onLaunch(({ instance, claim }) =>
      this.note(
        'instance-launched',
        `instance ${instance.instanceId} launched for ${claim.name}: ${instance.instanceType} ${instance.capacityType} ${instance.zone}`,
        instance.instanceId,
      ),
    );
    this.simCloud.onDelete((instance) =>
      this.note('instance-terminated', `instance ${instance.instanceId} terminated`, instance.instanceId),
    );
    this.sim.onChange((change) => {
      switch (change.type) {
        case 'node-registered':
        case 'node-ready':
        case 'node-deleted':
          this.note(change.type, `node ${change.node} ${change.type.slice(5)}`, change.node);
          return;
        case 'pod-bound':
          this.note('pod-bound', `pod ${change.pod} bound to ${change.node}`, change.pod, change.node);
          return;
        case 'pod-evicted':
          this.note('pod-evicted', `pod ${change.pod} evicted`, change.pod);
          return;
        case 'pod-pending':
          this.note('pod-pending', `pod ${change.pod} pending again (recreated by its controller)`, change.pod);
          return;
        case 'pod-deleted':
          return;
      }
    });
  }

  private note(kind: TimelineEntry['kind'], text: string, subject?: string, detail?: string): void {
    const entry: TimelineEntry = {
      at: this.clock.now(),
      kind,
      text,
      ...(subject !== undefined ? { subject } : {}),
      ...(detail !== undefined ? { detail } : {}),
    };
    this.timeline.push(entry);
    this.options.onTimeline?.(entry);
  }
}

function createQueues(clock: VirtualClock): Queues {
  const eventsDlq = new MemoryQueue({ name: 'karpless-events-dlq.fifo', clock });
  const interruptionDlq = new MemoryQueue({ name: 'karpless-interruption-dlq', clock });
  const terminationDlq = new MemoryQueue({ name: 'karpless-termination-dlq', clock });
  return {
    events: new MemoryQueue({
      name: 'karpless-events.fifo',
      clock,
      contentBasedDeduplication: true,
      visibilityTimeoutSeconds: VISIBILITY_SECONDS.events,
      redrive: { deadLetterQueue: eventsDlq, maxReceiveCount: MAX_RECEIVE.events },
    }),
    eventsDlq,
    interruption: new MemoryQueue({
      name: 'karpless-interruption',
      clock,
      visibilityTimeoutSeconds: VISIBILITY_SECONDS.interruption,
      redrive: { deadLetterQueue: interruptionDlq, maxReceiveCount: MAX_RECEIVE.interruption },
    }),
    interruptionDlq,
    termination: new MemoryQueue({
      name: 'karpless-termination',
      clock,
      visibilityTimeoutSeconds: VISIBILITY_SECONDS.termination,
      redrive: { deadLetterQueue: terminationDlq, maxReceiveCount: MAX_RECEIVE.termination },
    }),
    terminationDlq,
  };
}
