// The local pipeline: the real Lambda handlers (functions/*/handler.ts, with injected ports) wired as the stack
// wires them (stacks/functions.ts): the cluster FIFO queue into the provisioner, the standard interruption queue into
// interruption, the standard termination queue into termination, and scheduled ticks into gc and (as Sweep messages)
// the FIFO queue. Behind the ports: the simulated cluster and cloud on a virtual clock, dynalite as DynamoDB, and
// in-memory SQS with each queue's DLQ and maxReceiveCount; each consumer sends poison messages straight to its DLQ. The real forwarder batching feeds the FIFO queue from the
// simulated cluster's changes. Time is virtual; handlers run for real, so their wall-clock cost can be measured.
import type { Context, SQSEvent } from 'aws-lambda';
import { ListWatch, WATCHED } from '../forwarder/list-watch';
import type { ControlPlanePorts } from '../functions/_wiring/ports';
import { createHandler as createGc } from '../functions/gc/handler';
import { createHandler as createInterruption } from '../functions/interruption/handler';
import { createObservability } from '../functions/middleware';
import { fakeContext } from '../functions/middleware/fake-context';
import { createHandler as createProvisioner } from '../functions/provisioner/handler';
import { createHandler as createTermination } from '../functions/termination/handler';
import { DynamoNodeClaimStore } from '../shared/aws/dynamo/store';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import type { NodeClaimStore } from '../shared/ports';
import type { SimCloud, SimCluster, VirtualClock } from '../shared/sim';
import { MemoryNodeClaimStore } from '../shared/sim';
import { type MemoryQueue, MemoryWorkQueue, memoryDeadLetter, type PollResult, QueuePoller } from '../shared/sim/sqs';
import { createSimWorld } from '../shared/sim/world';
import { auditPipeline, type PipelineAudit } from './audit';
import { DeadLetterWatch } from './dead-letter-watch';
import { ForwarderFeed } from './forwarder-feed';
import { InstrumentedCloud, type SimulatedCrash } from './instrumented-cloud';
import { KubeApiOutage } from './kube-outage';
import { captureJsonLines, isMetricsRecord, type LogRecord } from './log-capture';
import { withNodeClaimObjects } from './nodeclaim-object-api';
import { ObservedStore } from './observed-store';
import type { Invocation, InvokableFunction, PipelineFunction } from './pipeline-functions';
import type { LocalPipelineOptions } from './pipeline-options';
import { createQueues, type Queues } from './pipeline-queues';
import { PipelineTimeline, type TimelineEntry } from './pipeline-timeline';

export {
  INVOKABLE_FUNCTIONS,
  type Invocation,
  type InvokableFunction,
  type PipelineFunction,
} from './pipeline-functions';
export type { LocalPipelineOptions } from './pipeline-options';
export { MAX_RECEIVE, VISIBILITY_SECONDS } from './pipeline-queues';
export type { TimelineEntry } from './pipeline-timeline';

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
  /** Makes the Kubernetes API unreachable from the functions for a while (`kubeOutage.begin(ms)`). */
  readonly kubeOutage: KubeApiOutage;
  readonly ports: ControlPlanePorts;
  /** The ports each function runs on: the shared ones, plus its consumed queue's DLQ for an SQS consumer. */
  private readonly functionPorts: Record<PipelineFunction, ControlPlanePorts>;
  readonly timeline: TimelineEntry[];
  private readonly record: PipelineTimeline;
  private readonly deadLetters: DeadLetterWatch;
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
  private restoreOutput: (() => void) | undefined;
  private stopStore: (() => Promise<void>) | undefined;
  private nodeClaimWatch: { watch: ListWatch; running: Promise<void> } | undefined;

  private constructor(
    private readonly options: LocalPipelineOptions,
    store: NodeClaimStore,
  ) {
    this.cluster = options.cluster ?? 'demo';
    this.record = new PipelineTimeline(() => this.clock.now(), options.onTimeline);
    this.timeline = this.record.entries;
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
    this.kubeOutage = new KubeApiOutage(() => this.clock.now());
    this.ports = {
      ...ports,
      kube: this.kubeOutage.wrap(
        options.nodeClaimObjects ? withNodeClaimObjects(ports.kube, options.nodeClaimObjects) : ports.kube,
      ),
      cloud: this.cloud,
      // Claim writes reach the timeline as they happen; the diff after each invocation catches the rest.
      store: new ObservedStore(store, (c) => this.record.recordClaim(c)),
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
        this.record.note(
          'batch-sent',
          `${m.kind} ×${m.keys.length} sent to the FIFO queue${accepted ? '' : ' (deduplicated)'}`,
        ),
    });
    this.nextSweep = this.clock.now() + (options.sweepEveryMs ?? 60_000);
    this.nextGc = this.clock.now() + (options.gcEveryMs ?? 60_000);
    this.deadLetters = new DeadLetterWatch(
      [this.queues.eventsDlq, this.queues.interruptionDlq, this.queues.terminationDlq],
      this.record,
    );
    this.record.watch(this.simCloud, this.sim);
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
      this.deadLetters.check();
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
      this.record.note('invocation-failed', `gc failed: ${String(error)}`);
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
      this.record.note(
        'invocation-failed',
        `${fn} invocation failed: ${r.error instanceof Error ? r.error.message : String(r.error)}`,
      );
    }
  }

  private async recordClaimChanges(): Promise<void> {
    for (const c of await this.store.list()) this.record.recordClaim(c);
  }
}
