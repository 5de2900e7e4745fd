// Turns controllers into the pods they would create, so the engine sees pending pods exactly as the cluster would:
// Deployments and ReplicaSets `<name>-<index>`, StatefulSets `<name>-<ordinal>` with their volume claims, Jobs
// `<name>-<index>` up to their parallelism. DaemonSets are not expanded: they are per-node overhead.
import { createHash } from 'node:crypto';
import type {
  ObjectMeta,
  OwnerReference,
  PersistentVolumeClaim,
  Pod,
  PodStatus,
  PodTemplateSpec,
  PriorityClass,
  StatefulSet,
  Volume,
} from './kube';
import type { ManifestSet } from './manifest-set';
import { withRuntimeClass } from './runtime-class';

export interface ExpandedPods {
  pods: Pod[];
  pvcs: PersistentVolumeClaim[];
  /** Unknown priority classes and the like. */
  warnings: string[];
}

/** Built-in classes every cluster has. */
const SYSTEM_PRIORITY: Record<string, number> = {
  'system-cluster-critical': 2_000_000_000,
  'system-node-critical': 2_000_001_000,
};

/** A stable, UUID-shaped uid for an object, so repeated runs name and key everything the same way. */
export function uidFor(kind: string, namespace: string, name: string): string {
  const h = createHash('sha256').update(`${kind}/${namespace}/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export const PENDING_STATUS: PodStatus = {
  phase: 'Pending',
  conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
};

export function expandPods(set: ManifestSet): ExpandedPods {
  const out: ExpandedPods = { pods: [], pvcs: [], warnings: [] };
  const priority = priorityResolver(set.priorityClasses, out.warnings);
  const runtimeClasses = new Map((set.runtimeClasses ?? []).map((rc) => [rc.metadata.name, rc]));
  const finish = (pod: Pod): Pod => {
    const p = priority(pod);
    const prioritized = p === undefined ? pod : { ...pod, spec: { ...pod.spec, ...p } };
    return withRuntimeClass(prioritized, runtimeClasses, out.warnings);
  };
  for (const pod of set.pods) {
    const ns = pod.metadata.namespace ?? 'default';
    const bound = pod.spec.nodeName !== undefined;
    out.pods.push(
      finish({
        ...pod,
        metadata: { ...pod.metadata, namespace: ns, uid: pod.metadata.uid ?? uidFor('Pod', ns, pod.metadata.name) },
        ...(pod.status || bound ? {} : { status: clonePending() }),
      }),
    );
  }
  for (const [kind, apiVersion, list] of [
    ['Deployment', 'apps/v1', set.deployments],
    ['ReplicaSet', 'apps/v1', set.replicaSets],
  ] as const) {
    for (const c of list) {
      const replicas = c.spec.replicas ?? 1;
      for (let i = 0; i < replicas; i++) {
        out.pods.push(finish(podFrom(kind, apiVersion, c.metadata, c.spec.template, `${c.metadata.name}-${i}`)));
      }
    }
  }
  for (const sts of set.statefulSets) {
    const replicas = sts.spec.replicas ?? 1;
    for (let ordinal = 0; ordinal < replicas; ordinal++) out.pods.push(finish(statefulSetPod(sts, ordinal, out.pvcs)));
  }
  for (const job of set.jobs) {
    let count = job.spec.parallelism ?? 1;
    if (job.spec.completions !== undefined) count = Math.min(count, job.spec.completions);
    for (let i = 0; i < count; i++) {
      const pod = podFrom('Job', 'batch/v1', job.metadata, job.spec.template, `${job.metadata.name}-${i}`);
      pod.metadata.labels = {
        ...pod.metadata.labels,
        'batch.kubernetes.io/job-name': job.metadata.name,
        'job-name': job.metadata.name,
      };
      out.pods.push(finish(pod));
    }
  }
  return out;
}

/** The StatefulSet's pod at `ordinal`, named and labelled by it, with a PersistentVolumeClaim per volume claim
 * template (added to `pvcs`) in place of the template's volume of that name. */
function statefulSetPod(sts: StatefulSet, ordinal: number, pvcs: PersistentVolumeClaim[]): Pod {
  const ns = sts.metadata.namespace ?? 'default';
  const podName = `${sts.metadata.name}-${ordinal}`;
  const pod = podFrom('StatefulSet', 'apps/v1', sts.metadata, sts.spec.template, podName);
  pod.metadata.labels = {
    ...pod.metadata.labels,
    'statefulset.kubernetes.io/pod-name': podName,
    'apps.kubernetes.io/pod-index': String(ordinal),
  };
  const volumes: Volume[] = [...(pod.spec.volumes ?? [])];
  for (const t of sts.spec.volumeClaimTemplates ?? []) {
    const claimName = `${t.metadata.name}-${sts.metadata.name}-${ordinal}`;
    pvcs.push({
      kind: 'PersistentVolumeClaim',
      metadata: {
        ...(t.metadata.labels ? { labels: { ...t.metadata.labels } } : {}),
        ...(t.metadata.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
        name: claimName,
        namespace: ns,
        uid: uidFor('PersistentVolumeClaim', ns, claimName),
      },
      spec: structuredClone(t.spec),
      status: { phase: 'Pending' },
    });
    const volume: Volume = { name: t.metadata.name, persistentVolumeClaim: { claimName } };
    const at = volumes.findIndex((v) => v.name === t.metadata.name);
    if (at >= 0) volumes[at] = volume;
    else volumes.push(volume);
  }
  if (volumes.length > 0) pod.spec.volumes = volumes;
  return pod;
}

const clonePending = (): PodStatus => structuredClone(PENDING_STATUS);

function podFrom(kind: string, apiVersion: string, owner: ObjectMeta, template: PodTemplateSpec, name: string): Pod {
  const namespace = owner.namespace ?? 'default';
  const ownerRef: OwnerReference = {
    apiVersion,
    kind,
    name: owner.name,
    uid: owner.uid ?? uidFor(kind, namespace, owner.name),
    controller: true,
  };
  const meta = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      name,
      namespace,
      uid: uidFor('Pod', namespace, name),
      ownerReferences: [ownerRef],
    },
    spec: structuredClone(template.spec),
    status: clonePending(),
  };
}

type PriorityFields = { priority: number; priorityClassName?: string };

/** Resolves a pod's priority as admission would: its class's value, else the global default class, else 0. */
function priorityResolver(classes: PriorityClass[], warnings: string[]): (pod: Pod) => PriorityFields | undefined {
  const values = new Map<string, number>(Object.entries(SYSTEM_PRIORITY));
  for (const c of classes) values.set(c.metadata.name, c.value);
  const globalDefault = classes.find((c) => c.globalDefault);
  const warned = new Set<string>();
  return (pod) => {
    if (pod.spec.priority !== undefined) return undefined;
    const className = pod.spec.priorityClassName;
    if (className !== undefined) {
      const value = values.get(className);
      if (value !== undefined) return { priority: value };
      if (!warned.has(className)) {
        warned.add(className);
        warnings.push(`PriorityClass ${JSON.stringify(className)} is not among the manifests; its pods get priority 0`);
      }
      return { priority: 0 };
    }
    if (globalDefault) return { priority: globalDefault.value, priorityClassName: globalDefault.metadata.name };
    return { priority: 0 };
  };
}
