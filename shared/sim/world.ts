// The simulated world, assembled in one place: a virtual clock, the simulated cloud wired to the simulated cluster,
// a NodeClaim store, the cluster queue, a seeded random source, and the ControlPlaneDeps the use-cases run on. The
// test beds, the scenario runner, `simulate -f` and the local pipeline all start from here, so the four agree on
// how the world fits together and differ only in what they drive through it.
import type { EC2NodeClass } from '../api/karpenter';
import type { InstanceType } from '../catalog/types';
import {
  type ControlPlaneConfig,
  type ControlPlaneDeps,
  controlPlaneConfig,
  noMetric,
  type Solver,
  silentLog,
} from '../controllers';
import type { NodeClaimStore, WorkQueue } from '../ports';
import { connectCloudToCluster } from './connect';
import { MemoryNodeClaimStore } from './memory-store';
import { createRng, type Rng } from './rng';
import { SimCloud } from './sim-cloud';
import { SimCluster } from './sim-cluster';
import { SimQueue } from './sim-queue';
import { VirtualClock } from './virtual-clock';

export interface SimWorldOptions<Q extends WorkQueue, S extends NodeClaimStore> {
  /** The cluster name: the store partition, the FIFO group and the cloud's cluster tag. */
  cluster: string;
  /** Seeds the cloud's and the cluster's ids. */
  seed: number;
  /** Seeds the cloud's instance ids alone; defaults to `seed`. */
  cloudSeed?: number;
  /** Seeds the control plane's random source (NodeClaim uids, decision ids); defaults to `seed`. */
  randomSeed?: number;
  /** The virtual clock's start (epoch ms or ISO time). */
  start?: number | string;
  /** The instance types an EC2NodeClass sees. */
  instanceTypes: (nodeClass: EC2NodeClass) => InstanceType[];
  registrationDelayMs?: number;
  readyDelayMs?: number;
  replaceEvictedPods?: boolean;
  /** The simulated cluster plays kube-scheduler (binds nominated pods); on unless false (SimClusterOptions). */
  kubeScheduler?: boolean;
  /** Objects loaded into the cluster at the start (NodePools, EC2NodeClasses, pods, ...). */
  objects?: Iterable<{ kind?: string }>;
  /** The cluster queue; a SimQueue by default. */
  queue?: (clock: VirtualClock) => Q;
  /** The NodeClaim store; an in-memory one by default. */
  store?: (clock: VirtualClock) => S;
  config?: Partial<ControlPlaneConfig>;
  solve?: Solver;
}

export interface SimWorld<Q extends WorkQueue = SimQueue, S extends NodeClaimStore = MemoryNodeClaimStore> {
  clock: VirtualClock;
  cloud: SimCloud;
  cluster: SimCluster;
  store: S;
  queue: Q;
  /** The control plane's random source; `deps.random` draws from it. */
  rng: Rng;
  deps: ControlPlaneDeps;
}

export function createSimWorld<Q extends WorkQueue = SimQueue, S extends NodeClaimStore = MemoryNodeClaimStore>(
  options: SimWorldOptions<Q, S>,
): SimWorld<Q, S> {
  const { cluster: name, seed } = options;
  const clock = new VirtualClock(options.start);
  const cloud = new SimCloud({
    clock,
    seed: options.cloudSeed ?? seed,
    cluster: name,
    instanceTypes: options.instanceTypes,
  });
  const cluster = new SimCluster({
    clock,
    seed,
    registrationDelayMs: options.registrationDelayMs ?? 30_000,
    readyDelayMs: options.readyDelayMs ?? 15_000,
    ...(options.replaceEvictedPods ? { replaceEvictedPods: true } : {}),
    ...(options.kubeScheduler === false ? { kubeScheduler: false } : {}),
  });
  connectCloudToCluster(cloud, cluster);
  if (options.objects) cluster.load(options.objects);
  // The defaults stand for S and Q only when the caller gave no factory, which is when S and Q default to them.
  const store = options.store
    ? options.store(clock)
    : (new MemoryNodeClaimStore({ cluster: name, clock }) as unknown as S);
  const queue = options.queue ? options.queue(clock) : (new SimQueue(clock) as unknown as Q);
  const rng = createRng(options.randomSeed ?? seed);
  const deps: ControlPlaneDeps = {
    cluster: name,
    kube: cluster,
    cloud,
    store,
    queue,
    clock,
    log: silentLog,
    metric: noMetric,
    config: controlPlaneConfig(options.config),
    random: rng.next,
    ...(options.solve ? { solve: options.solve } : {}),
  };
  return { clock, cloud, cluster, store, queue, rng, deps };
}
