// The Kubernetes controllers a scenario needs: Deployments, StatefulSets, ReplicaSets and Jobs keep their replica
// count of pods (scale up adds the next indexes, scale down removes the highest), a deleted workload takes its pods
// with it. Evicted pods come back pending through the SimCluster, as their controller would recreate them.
import { expandPods } from '../../api/expand';
import type { Deployment, Job, Pod, PriorityClass, ReplicaSet, StatefulSet } from '../../api/kube';
import { emptyManifestSet, type ManifestSet } from '../../api/manifest-set';
import type { SimCluster } from '../sim-cluster';
import type { ObjectTarget, WorkloadKind } from './types';

type Workload =
  | { kind: 'Deployment'; obj: Deployment }
  | { kind: 'StatefulSet'; obj: StatefulSet }
  | { kind: 'ReplicaSet'; obj: ReplicaSet }
  | { kind: 'Job'; obj: Job };

const keyOf = (kind: string, namespace: string, name: string): string => `${kind}/${namespace}/${name}`;

export class WorkloadController {
  private readonly workloads = new Map<string, Workload>();
  private readonly priorityClasses: PriorityClass[] = [];
  private readonly pvcNames = new Set<string>();
  readonly warnings: string[] = [];

  /** `onPodsAdded` is told how many pending pods appeared (the forwarder's batching starts from it). */
  constructor(
    private readonly cluster: SimCluster,
    private readonly onPodsAdded: (count: number) => void,
  ) {}

  /** Applies a manifest set: Karpenter objects are created or replaced, workloads created or rescaled, bare pods
   * and the rest added. */
  apply(set: ManifestSet): void {
    for (const o of [...set.nodeClasses, ...set.nodePools, ...set.nodeOverlays]) this.cluster.upsert(o);
    this.cluster.load([
      ...set.daemonSets,
      ...set.pdbs,
      ...set.pvs,
      ...set.storageClasses,
      ...set.namespaces,
      ...set.pvcs,
      ...set.nodes,
    ]);
    this.priorityClasses.push(...set.priorityClasses);
    if (set.pods.length > 0) {
      const expanded = expandPods({ ...emptyManifestSet(), pods: set.pods, priorityClasses: this.priorityClasses });
      this.addPods(expanded.pods.filter((p) => !this.cluster.getPod(`${p.metadata.namespace}/${p.metadata.name}`)));
    }
    const all: Workload[] = [
      ...set.deployments.map((obj) => ({ kind: 'Deployment' as const, obj })),
      ...set.statefulSets.map((obj) => ({ kind: 'StatefulSet' as const, obj })),
      ...set.replicaSets.map((obj) => ({ kind: 'ReplicaSet' as const, obj })),
      ...set.jobs.map((obj) => ({ kind: 'Job' as const, obj })),
    ];
    for (const w of all) {
      const k = keyOf(w.kind, w.obj.metadata.namespace ?? 'default', w.obj.metadata.name);
      this.workloads.set(k, w);
      this.reconcile(w);
    }
  }

  /** Sets a workload's replicas (a Job's parallelism); an unknown workload is an error naming it. */
  scale(target: ObjectTarget<WorkloadKind>, replicas: number): void {
    const w = this.find(target);
    if (w.kind === 'Job') w.obj = { ...w.obj, spec: { ...w.obj.spec, parallelism: replicas } } as Job;
    else w.obj = { ...w.obj, spec: { ...w.obj.spec, replicas } } as never;
    this.reconcile(w);
  }

  /** Deletes a workload and its pods, or a bare pod. */
  delete(target: ObjectTarget): void {
    if (target.kind === 'Pod') {
      if (!this.cluster.deletePod(`${target.namespace}/${target.name}`))
        throw new Error(`${describe(target)} not found`);
      return;
    }
    const w = this.find(target as ObjectTarget<WorkloadKind>);
    this.workloads.delete(keyOf(target.kind, target.namespace, target.name));
    for (const pod of this.podsOf(w)) this.cluster.deletePod(`${pod.metadata.namespace}/${pod.metadata.name}`);
  }

  has(target: ObjectTarget): boolean {
    return this.workloads.has(keyOf(target.kind, target.namespace, target.name));
  }

  private find(target: ObjectTarget): Workload {
    const w = this.workloads.get(keyOf(target.kind, target.namespace, target.name));
    if (!w) throw new Error(`${describe(target)} not found (apply it in an earlier step)`);
    return w;
  }

  private podsOf(w: Workload): Pod[] {
    const ns = w.obj.metadata.namespace ?? 'default';
    return this.cluster
      .allPods()
      .filter(
        (p) =>
          p.metadata.namespace === ns &&
          p.metadata.ownerReferences?.some((o) => o.controller && o.kind === w.kind && o.name === w.obj.metadata.name),
      );
  }

  /** Adds the pods the workload should have and lacks; removes the ones beyond its count. */
  private reconcile(w: Workload): void {
    const set: ManifestSet = { ...emptyManifestSet(), priorityClasses: this.priorityClasses };
    if (w.kind === 'Deployment') set.deployments = [w.obj];
    if (w.kind === 'StatefulSet') set.statefulSets = [w.obj];
    if (w.kind === 'ReplicaSet') set.replicaSets = [w.obj];
    if (w.kind === 'Job') set.jobs = [w.obj];
    const desired = expandPods(set);
    const newPvcs = desired.pvcs.filter((c) => !this.pvcNames.has(`${c.metadata.namespace}/${c.metadata.name}`));
    for (const c of newPvcs) this.pvcNames.add(`${c.metadata.namespace}/${c.metadata.name}`);
    this.cluster.load(newPvcs);
    const wanted = new Set(desired.pods.map((p) => p.metadata.name));
    const current = this.podsOf(w);
    const have = new Set(current.map((p) => p.metadata.name));
    for (const pod of current)
      if (!wanted.has(pod.metadata.name)) this.cluster.deletePod(`${pod.metadata.namespace}/${pod.metadata.name}`);
    this.addPods(desired.pods.filter((p) => !have.has(p.metadata.name)));
  }

  private addPods(pods: Pod[]): void {
    for (const pod of pods) {
      // A fresh uid from the cluster: a pod recreated after a scale-down is a new pod.
      const { uid: _stable, ...metadata } = pod.metadata;
      this.cluster.addPod({ ...pod, metadata });
    }
    if (pods.length > 0) this.onPodsAdded(pods.length);
  }
}

const describe = (t: ObjectTarget): string => `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;
