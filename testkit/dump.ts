// Cluster dumps for tests: the objects `kubectl get nodes,pods,nodeclaims,... -A -o yaml` prints, written as one
// `kind: List`, and `simulate` run on them through the command's own path (parse, expand, runSimulation on the
// embedded catalog). docs/simulate-dump.md describes what each object means to the plan.
import { stringify } from 'yaml';
import { expandPods } from '../shared/api/expand';
import { parseManifests } from '../shared/api/parse';
import { loadCatalog } from '../shared/catalog/load';
import { catalogEngine } from '../shared/sim/default-engine';
import { simulationObjectsOf } from '../shared/sim/manifest-objects';
import { runSimulation, type SimulationOptions, type SimulationResult } from '../shared/sim/simulation';

type Obj = Record<string, unknown>;
interface TaintSpec {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

const ZONE = 'us-east-1a';

/** A NodePool on m5 types only (on-demand), so plans are easy to read; `startupTaints` as Karpenter's. */
export function dumpNodePool(o: { name?: string; startupTaints?: TaintSpec[]; status?: Obj } = {}): Obj {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: o.name ?? 'default' },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [
            {
              key: 'node.kubernetes.io/instance-type',
              operator: 'In',
              values: ['m5.large', 'm5.xlarge', 'm5.2xlarge'],
            },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'topology.kubernetes.io/zone', operator: 'In', values: [ZONE, 'us-east-1b', 'us-east-1c'] },
          ],
          ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}),
        },
      },
    },
    ...(o.status ? { status: o.status } : {}),
  };
}

export const dumpNodeClass: Obj = {
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'default' },
  spec: {
    role: 'KarpenterNodeRole-demo',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
  },
};

export interface DumpNodeOptions {
  name: string;
  type?: string;
  zone?: string;
  /** Karpenter-launched (carries karpenter.sh/nodepool); default true. */
  karpenter?: boolean;
  initialized?: boolean;
  taints?: TaintSpec[];
  allocatable?: Record<string, string>;
}

export const providerIdOf = (name: string, zone = ZONE): string => `aws:///${zone}/i-${name}`;

export function dumpNode(o: DumpNodeOptions): Obj {
  const zone = o.zone ?? ZONE;
  const karpenter = o.karpenter ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: o.name,
      labels: {
        'node.kubernetes.io/instance-type': o.type ?? 'm5.large',
        'topology.kubernetes.io/zone': zone,
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        ...(karpenter
          ? {
              'karpenter.sh/nodepool': 'default',
              'karpenter.sh/capacity-type': 'on-demand',
              'karpenter.sh/registered': 'true',
              ...(o.initialized ? { 'karpenter.sh/initialized': 'true' } : {}),
            }
          : {}),
      },
    },
    spec: { providerID: providerIdOf(o.name, zone), ...(o.taints ? { taints: o.taints } : {}) },
    ...(o.allocatable ? { status: { allocatable: o.allocatable } } : {}),
  };
}

export interface DumpNodeClaimOptions {
  name: string;
  /** The Node it launched, when registered. */
  nodeName?: string;
  type?: string;
  zone?: string;
  launched?: boolean;
  deleting?: boolean;
  startupTaints?: TaintSpec[];
  taints?: TaintSpec[];
}

export function dumpNodeClaim(o: DumpNodeClaimOptions): Obj {
  const zone = o.zone ?? ZONE;
  const type = o.type ?? 'm5.large';
  const launched = o.launched ?? true;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: o.name,
      labels: {
        'karpenter.sh/nodepool': 'default',
        'node.kubernetes.io/instance-type': type,
        'topology.kubernetes.io/zone': zone,
        'karpenter.sh/capacity-type': 'on-demand',
      },
      ...(o.deleting ? { deletionTimestamp: '2026-11-25T20:00:00Z' } : {}),
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: [type] }],
      ...(o.taints ? { taints: o.taints } : {}),
      ...(o.startupTaints ? { startupTaints: o.startupTaints } : {}),
    },
    status: launched
      ? {
          providerID: providerIdOf(o.nodeName ?? o.name, zone),
          ...(o.nodeName ? { nodeName: o.nodeName } : {}),
          conditions: [{ type: 'Launched', status: 'True' }],
        }
      : { conditions: [{ type: 'Launched', status: 'Unknown' }] },
  };
}

export interface DumpPodOptions {
  name: string;
  cpu?: string;
  nodeName?: string;
  /** unschedulable (PodScheduled=False, Unschedulable; the default unbound), running (the default bound), none (no
   * status at all), unseen (Pending without a PodScheduled condition), Succeeded or Failed. */
  state?: 'unschedulable' | 'running' | 'none' | 'unseen' | 'Succeeded' | 'Failed';
  terminating?: boolean;
  labels?: Record<string, string>;
  spec?: Obj;
  ownerKind?: string;
}

export function dumpPod(o: DumpPodOptions): Obj {
  const state = o.state ?? (o.nodeName ? 'running' : 'unschedulable');
  const status: Record<string, Obj | undefined> = {
    unschedulable: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
    },
    running: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }] },
    none: undefined,
    unseen: { phase: 'Pending' },
    Succeeded: { phase: 'Succeeded' },
    Failed: { phase: 'Failed' },
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: 'default',
      labels: o.labels ?? { app: o.name.replace(/-\d+$/, '') },
      ...(o.terminating ? { deletionTimestamp: '2026-11-25T20:00:00Z' } : {}),
      ...(o.ownerKind ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: o.ownerKind, name: 'owner' }] } : {}),
    },
    spec: {
      containers: [{ name: 'app', image: 'app', resources: { requests: { cpu: o.cpu ?? '100m', memory: '64Mi' } } }],
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...o.spec,
    },
    ...(status[state] ? { status: status[state] } : {}),
  };
}

/** A CSINode with per-driver attach limits (`drivers[].allocatable.count`). */
export function dumpCSINode(node: string, limits: Record<string, number>): Obj {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: node },
    spec: {
      drivers: Object.entries(limits).map(([name, count]) => ({ name, nodeID: `i-${node}`, allocatable: { count } })),
    },
  };
}

export function dumpStorageClass(o: {
  name: string;
  provisioner: string;
  isDefault?: boolean;
  createdAt?: string;
  waitForFirstConsumer?: boolean;
}): Obj {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: o.name,
      ...(o.createdAt ? { creationTimestamp: o.createdAt } : {}),
      ...(o.isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
    },
    provisioner: o.provisioner,
    volumeBindingMode: o.waitForFirstConsumer === false ? 'Immediate' : 'WaitForFirstConsumer',
  };
}

/** A claim in namespace default; `storageClassName: null` leaves the class unset (admission's default applies). */
export function dumpPvc(o: { name: string; storageClassName?: string | null; volumeName?: string }): Obj {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: o.name, namespace: 'default' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
      ...(o.storageClassName !== null ? { storageClassName: o.storageClassName ?? 'standard' } : {}),
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
    },
  };
}

/** A bound volume: `csi` names its driver, `ebs` makes it an in-tree EBS volume, `nfs` neither. */
export function dumpPv(o: {
  name: string;
  csi?: string;
  ebs?: boolean;
  nfs?: boolean;
  storageClassName?: string;
}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: o.name },
    spec: {
      capacity: { storage: '1Gi' },
      ...(o.storageClassName !== undefined ? { storageClassName: o.storageClassName } : {}),
      ...(o.csi ? { csi: { driver: o.csi, volumeHandle: `vol-${o.name}` } } : {}),
      ...(o.ebs ? { awsElasticBlockStore: { volumeID: `vol-${o.name}` } } : {}),
      ...(o.nfs ? { nfs: { server: 'fake.server', path: '/some/path' } } : {}),
    },
  };
}

/** Pod spec fields mounting the claims, and generic ephemeral volumes with the template's class (null: unset). */
export function withVolumes(
  claims: string[],
  ephemeral: { name: string; storageClassName?: string | null }[] = [],
): Obj {
  return {
    volumes: [
      ...claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })),
      ...ephemeral.map((e) => ({
        name: e.name,
        ephemeral: {
          volumeClaimTemplate: {
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
              ...(e.storageClassName ? { storageClassName: e.storageClassName } : {}),
            },
          },
        },
      })),
    ],
  };
}

/** The objects as `kubectl get ... -o yaml` prints them: one `kind: List`. */
export function dumpYaml(items: Obj[]): string {
  return stringify({ apiVersion: 'v1', kind: 'List', items });
}

/** `karpless simulate -f` on a dump, through the command's path: parse, expand, simulate on the embedded catalog. */
export async function simulateDump(
  yaml: string,
  options: SimulationOptions = {},
  file = 'dump.yaml',
): Promise<SimulationResult> {
  const set = parseManifests(yaml, file);
  return runSimulation(simulationObjectsOf(set, expandPods(set)), catalogEngine(loadCatalog()), options);
}
/** Names of the pods each given node or in-flight claim took from this plan. */
export function placedOn(result: SimulationResult, node: string): string[] {
  return (result.existingNodes.find((n) => n.name === node)?.pods ?? []).map((p) => p.metadata.name);
}

export const newClaimPods = (result: SimulationResult): string[] =>
  result.nodeClaims.flatMap((c) => c.plan.pods.map((p) => p.metadata.name));
