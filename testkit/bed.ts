// A test bed for the control plane: the simulated cloud and cluster under a virtual clock, the in-memory store, and
// a recording queue whose messages can be pumped back through the dispatcher. Used by this module's tests and the
// function handlers' tests; not part of any bundle.
import { withNodeClassDefaults } from '../shared/api/defaults';
import type { EC2NodeClass, NodePool, NodeSelectorRequirementWithMinValues } from '../shared/api/karpenter';
import type { Pod, Toleration } from '../shared/api/kube';
import { LabelArch, LabelCapacityType, LabelInstanceType, LabelOS, LabelZone } from '../shared/api/labels';
import type { NodeClaim } from '../shared/api/nodeclaim';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import type { ControlPlaneConfig, ControlPlaneDeps } from '../shared/controllers/deps';
import { type DispatchResult, handleControlMessage } from '../shared/controllers/dispatch';
import { readDisruptionInput } from '../shared/controllers/disruption-input';
import { reconcileNodes } from '../shared/controllers/lifecycle';
import { mirrorNodeClaims } from '../shared/controllers/nodeclaim-mirror';
import { provision } from '../shared/controllers/provision';
import { driftReason } from '../shared/disruption';
import { LaunchError } from '../shared/errors';
import { parseControlMessage } from '../shared/events';
import type { CloudInstance, QueueMessage, WorkQueue } from '../shared/ports';
import type { SimCloud, SimCluster, VirtualClock } from '../shared/sim';
import type { MemoryNodeClaimStore } from '../shared/sim/memory-store';
import { createSimWorld } from '../shared/sim/world';
import { ec2NodeClass, nodePool, ownedBy, pod } from './builders';

export interface QueuedMessage extends QueueMessage {
  /** Virtual time at which the message becomes visible. */
  visibleAt: number;
}

/** Records sent messages; `take` hands out the ones whose delay has passed, in send order. */
export class RecordingQueue implements WorkQueue {
  readonly sent: QueuedMessage[] = [];
  private readonly waiting: QueuedMessage[] = [];

  constructor(private readonly clock: { now(): number }) {}

  async send(message: QueueMessage): Promise<void> {
    const queued = { ...message, visibleAt: this.clock.now() + (message.delaySeconds ?? 0) * 1000 };
    this.sent.push(queued);
    this.waiting.push(queued);
  }

  take(): QueuedMessage[] {
    const now = this.clock.now();
    const ready = this.waiting.filter((m) => m.visibleAt <= now);
    for (const m of ready) this.waiting.splice(this.waiting.indexOf(m), 1);
    return ready;
  }

  pending(): number {
    return this.waiting.length;
  }

  kinds(): string[] {
    return this.sent.map((m) => (JSON.parse(m.body) as { kind: string }).kind);
  }
}

export interface TestbedOptions {
  cluster?: string;
  seed?: number;
  config?: Partial<ControlPlaneConfig>;
  nodePool?: NodePool;
  nodeClass?: EC2NodeClass;
  registrationDelayMs?: number;
  readyDelayMs?: number;
  /** The simulated cluster plays kube-scheduler (binds nominated pods) unless false. */
  kubeScheduler?: boolean;
}

export interface Testbed {
  clock: VirtualClock;
  cloud: SimCloud;
  cluster: SimCluster;
  store: MemoryNodeClaimStore;
  queue: RecordingQueue;
  deps: ControlPlaneDeps;
  nodePool: NodePool;
  nodeClass: EC2NodeClass;
  /** Delivers every visible queued message to the dispatcher, repeating until none is left; returns the results. */
  pump(): Promise<DispatchResult[]>;
  /** Runs the control loop for `ms` of virtual time in `stepMs` steps: queued messages, lifecycle, provisioning,
   * as the forwarder's hints and the sweep would drive them. */
  settle(ms: number, stepMs?: number): Promise<void>;
}

const catalog = loadCatalog();

/** The bed's NodePool: on-demand m5/c5 large and xlarge in two zones, unless `requirements` says otherwise. */
export function testNodePool(
  name = 'default',
  requirements: NodeSelectorRequirementWithMinValues[] = [
    { key: LabelOS, operator: 'In', values: ['linux'] },
    { key: LabelArch, operator: 'In', values: ['amd64'] },
    { key: LabelInstanceType, operator: 'In', values: ['m5.large', 'm5.xlarge', 'c5.large', 'c5.xlarge'] },
    { key: LabelZone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
    { key: LabelCapacityType, operator: 'In', values: ['on-demand'] },
  ],
  extra: { terminationGracePeriod?: string } = {},
): NodePool {
  return nodePool({ name, requirements, ...extra });
}

/** A static NodePool (`spec.replicas`; undefined leaves it dynamic) of the bed's types, named `static` unless
 * given, with `limits` (`{ nodes: '3' }`) and the template's labels and annotations when given. */
export function staticNodePool(
  replicas: number | undefined,
  o: {
    name?: string;
    limits?: Record<string, string>;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  } = {},
): NodePool {
  const base = nodePool({
    name: o.name ?? 'static',
    requirements: testNodePool().spec.template.spec.requirements,
    ...(o.labels ? { labels: o.labels } : {}),
    ...(o.annotations ? { annotations: o.annotations } : {}),
  });
  return {
    ...base,
    spec: { ...base.spec, ...(replicas === undefined ? {} : { replicas }), ...(o.limits ? { limits: o.limits } : {}) },
  };
}

/** The bed's node class (discovery tag `test`), with the defaults the API server would apply. */
export function testNodeClass(): EC2NodeClass {
  return withNodeClassDefaults(ec2NodeClass({}, 'default', 'test'));
}

export interface PodOptions {
  namespace?: string;
  cpu?: string;
  memory?: string;
  owner?: 'ReplicaSet' | 'DaemonSet' | 'Node' | 'none';
  priorityClassName?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  nodeName?: string;
  tolerations?: Toleration[];
  resources?: Record<string, string>;
}

/** A bed pod: a ReplicaSet's (unless `owner` says otherwise), 500m and 512Mi, pending and unschedulable unless
 * `nodeName` binds it. */
export function makePod(name: string, o: PodOptions = {}): Pod {
  const owner = o.owner ?? 'ReplicaSet';
  return pod({
    typed: true,
    name,
    namespace: o.namespace ?? 'default',
    labels: o.labels ?? { app: name.replace(/-\d+$/, '') },
    ...(o.annotations ? { annotations: o.annotations } : {}),
    ...(owner === 'none' ? {} : { ownerReferences: ownedBy(owner, `${name}-owner`, { controller: true }) }),
    containers: [
      {
        name: 'main',
        resources: { requests: { cpu: o.cpu ?? '500m', memory: o.memory ?? '512Mi', ...(o.resources ?? {}) } },
      },
    ],
    ...(o.priorityClassName ? { priorityClassName: o.priorityClassName } : {}),
    ...(o.nodeName ? { nodeName: o.nodeName } : {}),
    ...(o.tolerations ? { tolerations: o.tolerations } : {}),
    status: {
      phase: o.nodeName ? 'Running' : 'Pending',
      ...(o.nodeName
        ? {}
        : { conditions: [{ type: 'PodScheduled', status: 'False' as const, reason: 'Unschedulable' }] }),
    },
  });
}

/**
 * Makes the testbed's cloud launch the instance and then throw, as when the invocation dies after CreateFleet
 * answered and before it recorded the instance. Restore with `t.deps.cloud = t.cloud`.
 */
export function crashAfterLaunch(t: Testbed): void {
  const create = t.cloud.create.bind(t.cloud);
  t.deps.cloud = Object.assign(Object.create(t.cloud), {
    create: async (...args: Parameters<typeof create>) => {
      await create(...args);
      throw new Error('Lambda timed out');
    },
  });
}

export function createTestbed(options: TestbedOptions = {}): Testbed {
  const cluster = options.cluster ?? 'test';
  const nodePool = options.nodePool ?? testNodePool();
  const nodeClass = options.nodeClass ?? testNodeClass();
  const world = createSimWorld({
    cluster,
    seed: options.seed ?? 7,
    start: '2026-01-01T00:00:00Z',
    instanceTypes: (nc) => instanceTypesFor(catalog, nc),
    registrationDelayMs: options.registrationDelayMs ?? 30_000,
    readyDelayMs: options.readyDelayMs ?? 15_000,
    objects: [nodePool, nodeClass],
    queue: (clock) => new RecordingQueue(clock),
    ...(options.config ? { config: options.config } : {}),
    ...(options.kubeScheduler === false ? { kubeScheduler: false } : {}),
  });
  const { clock, cloud, cluster: sim, store, queue, deps } = world;
  const pump = async (): Promise<DispatchResult[]> => {
    const results: DispatchResult[] = [];
    for (let round = 0; round < 50; round++) {
      const batch = queue.take();
      if (batch.length === 0) break;
      for (const m of batch) results.push(await handleControlMessage(deps, parseControlMessage(m.body)));
    }
    return results;
  };
  const settle = async (ms: number, stepMs = 5_000): Promise<void> => {
    const end = clock.now() + ms;
    while (clock.now() < end) {
      await pump();
      await reconcileNodes(deps);
      if ((await sim.listPendingPods()).length > 0) await provision(deps, { trigger: 'test' });
      clock.advance(Math.min(stepMs, end - clock.now()));
    }
    await pump();
    await reconcileNodes(deps);
  };
  return { clock, cloud, cluster: sim, store, queue, deps, nodePool, nodeClass, pump, settle };
}

/**
 * A bed holding one NodeClaim that is not launched yet (its CreateFleet was throttled, so it waits Pending for the
 * retry), and the instances the cloud has deleted since: for the cases where ending such a claim must not call
 * Delete on the cloud.
 */
export async function unlaunchedClaimBed(): Promise<{ t: Testbed; claim: NodeClaim; deleted: CloudInstance[] }> {
  const t = createTestbed();
  const deleted: CloudInstance[] = [];
  t.cloud.onDelete((i) => deleted.push(i));
  t.cluster.addPod(makePod('web-0'));
  t.cloud.failNextLaunch(new LaunchError('throttled', 'Request limit exceeded'));
  await provision(t.deps);
  const [claim] = await t.store.list({ states: ['Pending'] });
  if (!claim) throw new Error('no pending claim');
  return { t, claim, deleted };
}

/** One pod's NodeClaim launched, initialized and mirrored as a NodeClaim object: the start of the cases where someone
 * deletes that object. */
export async function mirroredClaim(t: Testbed): Promise<NodeClaim & { nodeName: string }> {
  t.cluster.addPod(makePod('web-0'));
  await provision(t.deps);
  await t.settle(2 * 60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim?.nodeName) throw new Error('no initialized claim');
  await mirrorNodeClaims(t.deps);
  return { ...claim, nodeName: claim.nodeName };
}

/** What the sweep's drift check says about one claim, from the same view a sweep reads (`trackPodChanges`: the
 * planning sweep's view, which first records pod changes and re-stamps old hashes). */
export async function sweepDrift(t: Testbed, claim: string, trackPodChanges = false): Promise<string | undefined> {
  const { input } = await readDisruptionInput(t.deps, { trackPodChanges });
  const node = input.nodes.find((n) => n.claim.name === claim);
  if (!node) throw new Error(`claim ${claim} not in the sweep's view`);
  const pool = input.nodePools.find((p) => p.metadata.name === node.claim.nodePool) as NodePool;
  const nodeClass = input.nodeClasses.find((c) => c.metadata.name === node.claim.nodeClass);
  return driftReason(node, pool, nodeClass, input.kubernetesVersion);
}
