// The `seed` step: Nodes and pods that already run when the scenario starts, written as manifests, instead of grown
// from pending pods. Each Node names its NodePool, instance type, capacity type and zone by its labels (as Karpenter's
// tests build NodeClaim-and-Node pairs); the step gives it a running instance and an Initialized NodeClaim with the
// pool's template stamped (expireAfter, terminationGracePeriod, annotations, drift hashes), aged from the Node's
// creationTimestamp. Pods are bound to a seeded Node as written: owner references (or none), start times (which a
// do-not-disrupt duration counts from), phases. docs/scenarios.md, Seeding running nodes.
import { claimTemplateFields } from '../../api/claim-template';
import { claimHashes } from '../../api/hash';
import type { EC2NodeClass, NodePool } from '../../api/karpenter';
import type { Node, Pod } from '../../api/kube';
import {
  LabelCapacityType,
  LabelInstanceType,
  LabelNodeClaim,
  LabelNodeInitialized,
  LabelNodePool,
  LabelZone,
} from '../../api/labels';
import type { ManifestSet } from '../../api/manifest-set';
import type { NodeClaim } from '../../api/nodeclaim';
import type { Problems } from '../../api/problems';
import type { CapacityType, InstanceType } from '../../catalog/types';
import type { NodeClaimStore } from '../../ports';
import { launchedNodeLabels, launchedNodeResources } from '../launched-node';
import { stableHex } from '../sim-account';
import type { SimCloud } from '../sim-cloud';
import type { SimCluster } from '../sim-cluster';

export interface SeedAction {
  type: 'seed';
  nodes: Node[];
  pods: Pod[];
  sources: string[];
}

/** Checks a seed step's manifests at `path`: Nodes and pods only, each Node labelled with its NodePool and instance
 * type, each pod bound to a Node of the step. */
export function checkSeed(p: Problems, path: string, set: ManifestSet, sources: string[]): SeedAction | undefined {
  const counts = Object.entries(set as unknown as Record<string, unknown[]>).filter(
    ([k, v]) => k !== 'nodes' && k !== 'pods' && Array.isArray(v) && v.length > 0,
  );
  for (const [k] of counts) p.error(path, `seeds only Nodes and Pods; apply ${k} in an apply step`);
  const names = new Set(set.nodes.map((n) => n.metadata.name));
  for (const n of set.nodes) {
    const at = `${path} Node ${n.metadata.name}: metadata.labels`;
    for (const key of [LabelNodePool, LabelInstanceType]) {
      if (!n.metadata.labels?.[key]) p.error(`${at}.${key}`, 'required on a seeded Node');
    }
    const ct = n.metadata.labels?.[LabelCapacityType];
    if (ct !== undefined && ct !== 'spot' && ct !== 'on-demand')
      p.error(`${at}.${LabelCapacityType}`, 'must be spot or on-demand');
  }
  for (const pod of set.pods) {
    const node = pod.spec.nodeName;
    if (!node || !names.has(node)) {
      p.error(
        `${path} Pod ${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}: spec.nodeName`,
        `must name a Node of this seed step, got ${JSON.stringify(node ?? null)}`,
      );
    }
  }
  return set.nodes.length > 0 ? { type: 'seed', nodes: set.nodes, pods: set.pods, sources } : undefined;
}

export interface SeedWorld {
  cluster: SimCluster;
  cloud: SimCloud;
  store: NodeClaimStore;
  clusterName: string;
  now: number;
  instanceTypesFor: (nodeClass: EC2NodeClass) => InstanceType[];
}

/** Puts the seeded Nodes, their instances and claims, and their pods into the world. */
export async function applySeed(w: SeedWorld, action: SeedAction): Promise<void> {
  const [pools, classes] = await Promise.all([w.cluster.listNodePools(), w.cluster.listNodeClasses()]);
  for (const node of action.nodes) await seedNode(w, node, pools, classes);
  const iso = new Date(w.now).toISOString();
  for (const pod of action.pods) {
    w.cluster.addPod({
      ...pod,
      status: { ...pod.status, phase: pod.status?.phase ?? 'Running', startTime: pod.status?.startTime ?? iso },
    });
  }
}

/** What a seeded Node runs as: its NodePool, EC2NodeClass, instance type and offering, read from its labels and
 * checked against what was applied, and when it was created. */
function seedTarget(w: SeedWorld, node: Node, pools: NodePool[], classes: EC2NodeClass[]) {
  const name = node.metadata.name;
  const labels = node.metadata.labels ?? {};
  const pool = pools.find((p) => p.metadata.name === labels[LabelNodePool]);
  if (!pool) throw new Error(`Node ${name}: NodePool ${labels[LabelNodePool]} not found (apply it before seeding)`);
  const nodeClass = classes.find((c) => c.metadata.name === pool.spec.template.spec.nodeClassRef.name);
  if (!nodeClass) throw new Error(`Node ${name}: EC2NodeClass ${pool.spec.template.spec.nodeClassRef.name} not found`);
  const type = w.instanceTypesFor(nodeClass).find((t) => t.name === labels[LabelInstanceType]);
  if (!type) throw new Error(`Node ${name}: instance type ${labels[LabelInstanceType]} is not in the catalog`);
  const capacityType = (labels[LabelCapacityType] ?? 'on-demand') as CapacityType;
  const offering = type.offerings.find(
    (o) => o.capacityType === capacityType && (labels[LabelZone] === undefined || o.zone === labels[LabelZone]),
  );
  if (!offering) throw new Error(`Node ${name}: ${type.name} has no ${capacityType} offering in ${labels[LabelZone]}`);
  const created = node.metadata.creationTimestamp ?? new Date(w.now).toISOString();
  if (Number.isNaN(Date.parse(created)) || Date.parse(created) > w.now) {
    throw new Error(`Node ${name}: metadata.creationTimestamp ${created} must be a time before the step`);
  }
  return { pool, nodeClass, type, capacityType, offering, created };
}

async function seedNode(w: SeedWorld, node: Node, pools: NodePool[], classes: EC2NodeClass[]): Promise<void> {
  const name = node.metadata.name;
  const labels = node.metadata.labels ?? {};
  const { pool, nodeClass, type, capacityType, offering, created } = seedTarget(w, node, pools, classes);
  const claim: NodeClaim = {
    name: `${pool.metadata.name}-${stableHex(name, 5)}`,
    uid: `seed-${stableHex(`uid/${name}`, 24)}`,
    cluster: w.clusterName,
    nodePool: pool.metadata.name,
    nodeClass: nodeClass.metadata.name,
    state: 'Initialized',
    version: 1,
    requirements: pool.spec.template.spec.requirements,
    instanceTypeOptions: [type.name],
    labels: { ...(pool.spec.template.metadata?.labels ?? {}), [LabelNodePool]: pool.metadata.name },
    taints: pool.spec.template.spec.taints ?? [],
    startupTaints: [],
    requests: {},
    nominatedPods: [],
    nodeName: name,
    createdAt: created,
    stateTimes: { Launched: created, Registered: created, Initialized: created },
    ...claimHashes(pool, nodeClass),
    ...claimTemplateFields(pool),
  };
  const instance = w.cloud.adopt(claim, nodeClass, type, offering, created);
  await w.store.create({
    ...claim,
    instanceId: instance.instanceId,
    providerID: instance.providerID,
    instanceType: type.name,
    zone: offering.zone,
    capacityType,
    pricePerHour: offering.price,
    ...(instance.imageId ? { imageId: instance.imageId } : {}),
  });
  w.cluster.addNode({
    ...node,
    kind: 'Node',
    metadata: {
      ...node.metadata,
      creationTimestamp: created,
      labels: {
        ...launchedNodeLabels(name, claim, instance, type, labels),
        [LabelNodeInitialized]: 'true',
        // Registration names the claim on its node (shared/controllers/lifecycle.ts); kube-scheduler's stand-in
        // finds a claim's node by it when a pod is nominated to the claim.
        [LabelNodeClaim]: claim.name,
      },
      ...(claim.annotations || node.metadata.annotations
        ? { annotations: { ...claim.annotations, ...node.metadata.annotations } }
        : {}),
    },
    spec: { ...node.spec, providerID: instance.providerID },
    status: {
      ...launchedNodeResources(type),
      ...node.status,
      conditions: node.status?.conditions ?? [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
    },
  });
}
