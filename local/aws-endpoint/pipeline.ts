// `karpless dev --aws-endpoint`: the real handlers with real SDK clients against an AWS-compatible endpoint for
// EC2, SSM, IAM, SQS and DynamoDB, and the simulated Kubernetes API as the cluster (nodes join, pods bind). The
// forwarder's real batching feeds the real FIFO queue; each queue is drained into its function the way Lambda's
// event source mapping does (shared/aws/sqs SqsEventSource); sweep and GC ticks come from the virtual clock.
// Nothing is assumed from an earlier run: claims are read from DynamoDB and instances from EC2 (joined-cloud.ts).
import type { Context, SQSEvent } from 'aws-lambda';
import type { ControlPlanePorts } from '../../functions/_wiring/ports';
import { createHandler as createGc } from '../../functions/gc/handler';
import { createHandler as createInterruption } from '../../functions/interruption/handler';
import { createObservability } from '../../functions/middleware';
import { fakeContext } from '../../functions/middleware/fake-context';
import { createHandler as createProvisioner } from '../../functions/provisioner/handler';
import { createHandler as createTermination } from '../../functions/termination/handler';
import type { EC2NodeClass } from '../../shared/api/karpenter';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import { AwsCloudProvider } from '../../shared/aws/cloud-provider';
import { DynamoNodeClaimStore } from '../../shared/aws/dynamo/store';
import { SqsEventSource, SqsWorkQueue, sqsDeadLetter } from '../../shared/aws/sqs';
import { instanceTypesFor, loadCatalog } from '../../shared/catalog';
import { controlPlaneConfig } from '../../shared/controllers';
import { SimCluster, VirtualClock } from '../../shared/sim';
import { type FeedQueue, ForwarderFeed } from '../forwarder-feed';
import { captureJsonLines, isMetricsRecord, type LogRecord } from '../log-capture';
import { JoinedCloud, type ReadBack, readBack } from './joined-cloud';
import { withAmazonLinuxStandIn } from './public-parameters';
import { type EndpointClients, type EndpointResources, endpointClients, ensureResources } from './resources';

export interface AwsEndpointOptions {
  endpoint: string;
  cluster: string;
  objects: Iterable<{ kind?: string }>;
  env?: NodeJS.ProcessEnv;
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  onLog?: (record: LogRecord) => void;
  /** One line per thing that happened: resources created, instances launched, nodes joined, pods bound. */
  onEvent?: (line: string) => void;
  registrationDelayMs?: number;
  readyDelayMs?: number;
}

/** The cluster facts user data needs; the local cluster has no real API server. */
const LOCAL_CLUSTER = { serviceCidr: '10.100.0.0/16', kubernetesVersion: '1.31', caData: 'bG9jYWw=' };

/** Buffers the forwarder's sends to the real FIFO queue; `flush` sends them in order. */
class SqsFeedQueue implements FeedQueue {
  private pending: { body: string; groupId: string; deduplicationId: string }[] = [];
  constructor(private readonly queue: SqsWorkQueue) {}
  send(message: { body: string; groupId: string; deduplicationId: string }) {
    this.pending.push(message);
    // SQS does not say whether it dropped a duplicate; the consumer sees what arrived.
    return { accepted: true };
  }
  async flush(): Promise<number> {
    const batch = this.pending;
    this.pending = [];
    for (const m of batch) await this.queue.send(m);
    return batch.length;
  }
}

export class AwsEndpointPipeline {
  readonly clock: VirtualClock;
  readonly sim: SimCluster;
  readonly cloud: JoinedCloud;
  readonly store: DynamoNodeClaimStore;
  readonly forwarder: ForwarderFeed;
  readBack: ReadBack = { joined: [], unclaimed: [] };
  private readonly feedQueue: SqsFeedQueue;
  private readonly sources: SqsEventSource[];
  private readonly sweepQueue: SqsWorkQueue;
  private readonly gc: (tick: unknown, context: Context) => Promise<unknown>;
  private nextSweep: number;
  private nextGc: number;
  private restoreOutput: (() => void) | undefined;

  private constructor(
    private readonly o: AwsEndpointOptions,
    readonly clients: EndpointClients,
    readonly resources: EndpointResources,
  ) {
    const { cluster } = o;
    this.clock = new VirtualClock(Date.now());
    this.sim = new SimCluster({
      clock: this.clock,
      registrationDelayMs: o.registrationDelayMs ?? 30_000,
      readyDelayMs: o.readyDelayMs ?? 15_000,
    });
    this.sim.load(o.objects);
    const catalog = loadCatalog();
    const aws = new AwsCloudProvider({
      cluster: { name: cluster, region: clients.region, endpoint: `https://${cluster}.local`, ...LOCAL_CLUSTER },
      ec2: clients.ec2,
      ssm: withAmazonLinuxStandIn(clients.ssm, (line) => this.event(line)),
      iam: clients.iam,
      clock: this.clock,
      instanceTypes: (nodeClass: EC2NodeClass) => instanceTypesFor(catalog, nodeClass),
    });
    this.cloud = new JoinedCloud(aws, this.sim);
    this.cloud.onLaunch((i, claim) =>
      this.event(`instance ${i.instanceId} launched for ${claim.name}: ${i.instanceType} ${i.capacityType} ${i.zone}`),
    );
    this.store = new DynamoNodeClaimStore({
      tableName: resources.tableName,
      cluster,
      client: clients.documents,
      clock: this.clock,
    });
    const q = resources.queues;
    this.sweepQueue = new SqsWorkQueue(clients.sqs, q.events);
    const ports: ControlPlanePorts = {
      cluster,
      kube: this.sim,
      cloud: this.cloud,
      store: this.store,
      queue: this.sweepQueue,
      terminationQueue: new SqsWorkQueue(clients.sqs, q.termination),
      clock: this.clock,
      config: controlPlaneConfig(),
    };
    const withDlq = (url: string): ControlPlanePorts => ({ ...ports, deadLetter: sqsDeadLetter(clients.sqs, url) });
    const obs = (service: string) => createObservability({ cluster, service, logLevel: o.logLevel ?? 'WARN' });
    const context = (fn: string) => fakeContext(() => 120_000, `karpless-${cluster}-${fn}`);
    const consume = (url: string, handler: (e: SQSEvent, c: Context) => Promise<unknown>, fn: string, size = 10) =>
      new SqsEventSource(clients.sqs, url, (e) => handler(e, context(fn)), { batchSize: size });
    const provisioner = createProvisioner(() => withDlq(q.eventsDlq), obs('provisioner'));
    const interruption = createInterruption(() => withDlq(q.interruptionDlq), obs('interruption'));
    const termination = createTermination(() => withDlq(q.terminationDlq), obs('termination'));
    this.sources = [
      consume(q.events, provisioner as never, 'provisioner'),
      consume(q.interruption, interruption as never, 'interruption'),
      consume(q.termination, termination as never, 'termination', 5),
    ];
    const gc = createGc(() => ports, obs('gc'));
    this.gc = (tick, c) => gc(tick, c);
    this.feedQueue = new SqsFeedQueue(this.sweepQueue);
    this.forwarder = new ForwarderFeed({
      cluster,
      sim: this.sim,
      clock: this.clock,
      queue: this.feedQueue,
      onSend: (m) => this.event(`${m.kind} ×${m.keys.length} sent to ${q.events.split('/').pop()}`),
    });
    this.sim.onChange((change) => {
      if (change.type === 'node-registered' || change.type === 'node-ready') {
        this.event(`node ${change.node} ${change.type.slice(5)}`);
      }
      if (change.type === 'pod-bound') this.event(`pod ${change.pod} bound to ${change.node}`);
    });
    this.nextSweep = this.clock.now() + 60_000;
    this.nextGc = this.clock.now() + 60_000;
  }

  static async create(o: AwsEndpointOptions): Promise<AwsEndpointPipeline> {
    const clients = endpointClients(o.endpoint, o.env);
    const resources = await ensureResources(clients, o.cluster);
    const p = new AwsEndpointPipeline(o, clients, resources);
    for (const r of resources.created) p.event(`created ${r}`);
    const catalog = loadCatalog();
    const nodeClasses = await p.sim.listNodeClasses();
    const typeOf = async (claim: NodeClaim) => {
      const nodeClass = nodeClasses.find((n) => n.metadata.name === claim.nodeClass) ?? nodeClasses[0];
      return nodeClass ? instanceTypesFor(catalog, nodeClass).find((t) => t.name === claim.instanceType) : undefined;
    };
    p.readBack = await readBack(p.cloud.inner, p.store, p.sim, typeOf, p.clock.iso());
    for (const j of p.readBack.joined) p.event(`node ${j.node} of ${j.claim} (${j.instanceId}) read back from EC2`);
    p.restoreOutput = captureJsonLines((record) => {
      if (!isMetricsRecord(record)) o.onLog?.(record);
    });
    await p.forwarder.start();
    return p;
  }

  stop(): void {
    this.restoreOutput?.();
    this.restoreOutput = undefined;
  }

  /** Runs until `done` holds after the work of a moment, or `limitMs` of virtual time passed. */
  async runUntil(done: () => boolean | Promise<boolean>, limitMs: number): Promise<boolean> {
    const end = this.clock.now() + limitMs;
    for (let i = 0; i < 10_000; i++) {
      await this.settleNow();
      if (await done()) return true;
      if (this.clock.now() >= end) return false;
      const next = [this.clock.nextDue(), this.forwarder.deadline(), this.nextSweep, this.nextGc, end].filter(
        (t): t is number => t !== undefined,
      );
      this.clock.advanceTo(Math.max(this.clock.now(), Math.min(...next)));
    }
    throw new Error('aws-endpoint pipeline: no progress after 10000 steps');
  }

  private async settleNow(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      this.forwarder.flushIfDue();
      let progressed = (await this.feedQueue.flush()) > 0;
      if (this.clock.now() >= this.nextSweep) {
        this.nextSweep += 60_000;
        const at = this.clock.iso();
        await this.sweepQueue.send({
          body: JSON.stringify({ v: 1, cluster: this.o.cluster, kind: 'Sweep', at }),
          groupId: this.o.cluster,
          deduplicationId: `sweep-${at}`,
        });
        progressed = true;
      }
      if (this.clock.now() >= this.nextGc) {
        this.nextGc += 60_000;
        const tick = { v: 1, cluster: this.o.cluster, kind: 'GarbageCollect', at: this.clock.iso() };
        await this.gc(
          tick,
          fakeContext(() => 120_000, `karpless-${this.o.cluster}-gc`),
        );
      }
      for (const source of this.sources) {
        const r = await source.pollOnce();
        if (r.received > 0) progressed = true;
        if (r.error !== undefined) this.event(`invocation failed: ${String(r.error)}`);
      }
      if (!progressed) return;
    }
  }

  private event(line: string): void {
    this.o.onEvent?.(line);
  }
}
