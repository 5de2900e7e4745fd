// Keeps only what the engine reads from each object (shared/api/kube.ts), dropping env, images, managed fields,
// probes, status noise and the last-applied annotation. Input is whatever client-node returned for one item.
import type {
  Container,
  CSINode,
  DaemonSet,
  Namespace,
  Node,
  ObjectMeta,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodDisruptionBudget,
  StorageClass,
  Volume,
} from '../api/kube';
import { pick, plain } from './plain';

type Raw = Record<string, unknown> & { metadata?: Record<string, unknown>; spec?: Record<string, unknown> };
type RawObject = Record<string, unknown>;

const DROPPED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

export function trimMeta(meta: RawObject | undefined): ObjectMeta {
  const m = plain<ObjectMeta>(
    pick(meta ?? {}, [
      'name',
      'namespace',
      'uid',
      'resourceVersion',
      'generation',
      'creationTimestamp',
      'deletionTimestamp',
      'labels',
      'annotations',
    ]),
  );
  if (m.annotations) {
    for (const key of Object.keys(m.annotations)) if (DROPPED_ANNOTATIONS.has(key)) delete m.annotations[key];
  }
  const owners = meta?.ownerReferences as RawObject[] | undefined;
  if (owners?.length) {
    m.ownerReferences = owners.map((o) => plain(pick(o, ['apiVersion', 'kind', 'name', 'uid', 'controller'])));
  }
  return m;
}

function trimContainer(c: RawObject): Container {
  const out = plain<Container>(pick(c, ['name', 'resources', 'restartPolicy']));
  const ports = c.ports as RawObject[] | undefined;
  // Only host ports constrain scheduling; container-only ports are dropped.
  const hostPorts = ports?.filter((p) => p.hostPort !== undefined && p.hostPort !== null && p.hostPort !== 0);
  if (hostPorts?.length)
    out.ports = hostPorts.map((p) => plain(pick(p, ['containerPort', 'hostPort', 'hostIP', 'protocol'])));
  return out;
}

function trimVolume(v: RawObject): Volume {
  return plain<Volume>(pick(v, ['name', 'persistentVolumeClaim', 'ephemeral', 'emptyDir']));
}

export function trimPod(raw: unknown): Pod {
  const p = raw as Raw;
  const spec = p.spec ?? {};
  const status = (p.status ?? {}) as RawObject;
  const out: Pod = {
    metadata: trimMeta(p.metadata) as Pod['metadata'],
    spec: {
      ...plain<Pod['spec']>(
        pick(spec, [
          'nodeName',
          'nodeSelector',
          'affinity',
          'tolerations',
          'overhead',
          'topologySpreadConstraints',
          'priority',
          'priorityClassName',
          'schedulerName',
          'terminationGracePeriodSeconds',
          'hostNetwork',
        ]),
      ),
      containers: ((spec.containers as RawObject[] | undefined) ?? []).map(trimContainer),
    },
  };
  const init = spec.initContainers as RawObject[] | undefined;
  if (init?.length) out.spec.initContainers = init.map(trimContainer);
  const volumes = spec.volumes as RawObject[] | undefined;
  const kept = volumes?.map(trimVolume).filter((v) => v.persistentVolumeClaim || v.ephemeral || v.emptyDir);
  if (kept?.length) out.spec.volumes = kept;
  const conditions = (status.conditions as RawObject[] | undefined)?.map((c) =>
    plain<NonNullable<Pod['status']>['conditions']>(pick(c, ['type', 'status', 'reason', 'lastTransitionTime'])),
  );
  out.status = plain({
    phase: status.phase,
    nominatedNodeName: status.nominatedNodeName,
    startTime: status.startTime,
    conditions,
  });
  return out;
}

export function trimNode(raw: unknown): Node {
  const n = raw as Raw;
  const status = (n.status ?? {}) as RawObject;
  const nodeInfo = status.nodeInfo as RawObject | undefined;
  const finalizers = (n.metadata as RawObject | undefined)?.finalizers as string[] | undefined;
  return {
    metadata: { ...trimMeta(n.metadata), ...(finalizers?.length ? { finalizers } : {}) },
    spec: plain(pick(n.spec ?? {}, ['providerID', 'taints', 'unschedulable'])),
    status: plain({
      capacity: status.capacity,
      allocatable: status.allocatable,
      conditions: (status.conditions as RawObject[] | undefined)?.map((c) =>
        pick(c, ['type', 'status', 'reason', 'lastTransitionTime']),
      ),
      nodeInfo: nodeInfo ? { kubeletVersion: nodeInfo.kubeletVersion } : undefined,
    }),
  };
}

export function trimDaemonSet(raw: unknown): DaemonSet {
  const d = raw as Raw;
  const template = (d.spec?.template ?? {}) as Raw;
  return {
    kind: 'DaemonSet',
    metadata: trimMeta(d.metadata),
    spec: {
      ...plain<Pick<DaemonSet['spec'], 'selector'>>(pick(d.spec ?? {}, ['selector'])),
      template: { metadata: trimMeta(template.metadata), spec: trimPod({ spec: template.spec }).spec },
    },
  };
}

export function trimPodDisruptionBudget(raw: unknown): PodDisruptionBudget {
  const p = raw as Raw;
  return {
    kind: 'PodDisruptionBudget',
    metadata: trimMeta(p.metadata),
    spec: plain(pick(p.spec ?? {}, ['minAvailable', 'maxUnavailable', 'selector'])),
    status: plain(
      pick((p.status ?? {}) as RawObject, ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']),
    ),
  };
}

export function trimPersistentVolumeClaim(raw: unknown): PersistentVolumeClaim {
  const p = raw as Raw;
  return {
    kind: 'PersistentVolumeClaim',
    metadata: trimMeta(p.metadata),
    spec: plain(pick(p.spec ?? {}, ['storageClassName', 'volumeName', 'accessModes', 'resources'])),
    status: plain(pick((p.status ?? {}) as RawObject, ['phase'])),
  };
}

export function trimPersistentVolume(raw: unknown): PersistentVolume {
  const p = raw as Raw;
  const spec = p.spec ?? {};
  const csi = spec.csi as RawObject | undefined;
  const claimRef = spec.claimRef as RawObject | undefined;
  const ebs = spec.awsElasticBlockStore as RawObject | undefined;
  return {
    kind: 'PersistentVolume',
    metadata: trimMeta(p.metadata),
    spec: plain({
      ...pick(spec, ['storageClassName', 'nodeAffinity', 'capacity']),
      claimRef: claimRef ? pick(claimRef, ['namespace', 'name']) : undefined,
      csi: csi ? pick(csi, ['driver', 'volumeHandle']) : undefined,
      awsElasticBlockStore: ebs ? pick(ebs, ['volumeID']) : undefined,
    }),
  };
}

export function trimStorageClass(raw: unknown): StorageClass {
  const s = raw as Raw;
  return {
    kind: 'StorageClass',
    metadata: trimMeta(s.metadata),
    ...plain<Omit<StorageClass, 'kind' | 'metadata'>>(
      pick(s, ['provisioner', 'volumeBindingMode', 'allowedTopologies', 'parameters']),
    ),
  };
}

/** Only the drivers' names and attach counts: what the volume limits read. */
export function trimCSINode(raw: unknown): CSINode {
  const c = raw as Raw;
  const drivers = (c.spec?.drivers as RawObject[] | undefined) ?? [];
  return {
    kind: 'CSINode',
    metadata: trimMeta(c.metadata),
    spec: {
      drivers: drivers.map((d) => {
        const count = (d.allocatable as RawObject | undefined)?.count;
        return { name: String(d.name), ...(typeof count === 'number' ? { allocatable: { count } } : {}) };
      }),
    },
  };
}

export function trimNamespace(raw: unknown): Namespace {
  return { kind: 'Namespace', metadata: trimMeta((raw as Raw).metadata) };
}
