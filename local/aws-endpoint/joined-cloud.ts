// The cloud of `karpless dev --aws-endpoint`: the real AwsCloudProvider against the endpoint, with the cluster half
// played by the simulated Kubernetes API. An instance the provider launches joins as a Node after the simulated
// registration delay, and its Node goes when the instance is terminated, as kubelet and the node lifecycle would.
// At start-up the instances a previous run launched are read back from EC2 and the store, and join at once: the
// cluster still has their nodes, so the same pods do not need new capacity.
import type { EC2NodeClass } from '../../shared/api/karpenter';
import type { Node } from '../../shared/api/kube';
import { LabelNodeClaim, LabelNodeInitialized } from '../../shared/api/labels';
import { LIVE_STATES, type NodeClaim } from '../../shared/api/nodeclaim';
import type { AwsCloudProvider } from '../../shared/aws/cloud-provider';
import type { InstanceType } from '../../shared/catalog/types';
import type {
  CloudInstance,
  CloudProvider,
  LaunchRequest,
  NodeClaimStore,
  NodeClassResolution,
} from '../../shared/ports';
import { launchedNodeLabels, launchedNodeResources, type SimCluster } from '../../shared/sim';

export class JoinedCloud implements CloudProvider {
  /** Instances this run launched, in order. */
  readonly launched: CloudInstance[] = [];
  private readonly launchListeners: ((instance: CloudInstance, claim: NodeClaim) => void)[] = [];

  constructor(
    readonly inner: AwsCloudProvider,
    private readonly sim: SimCluster,
  ) {}

  private get cloud(): AwsCloudProvider {
    return this.inner;
  }

  onLaunch(listener: (instance: CloudInstance, claim: NodeClaim) => void): void {
    this.launchListeners.push(listener);
  }

  async create(request: LaunchRequest): Promise<CloudInstance> {
    const known = new Set(this.launched.map((i) => i.instanceId));
    const instance = await this.cloud.create(request);
    const instanceType = request.instanceTypes.find((t) => t.name === instance.instanceType);
    // A replay answered with the claim's existing instance: it has joined already.
    if (known.has(instance.instanceId) || this.sim.nodeForProviderId(instance.providerID)) return instance;
    this.launched.push(instance);
    for (const l of this.launchListeners) l(instance, request.claim);
    if (instanceType) this.sim.registerLaunch({ instance, claim: request.claim, instanceType });
    return instance;
  }

  async delete(instanceId: string): Promise<void> {
    await this.cloud.delete(instanceId);
    for (const node of await this.sim.listNodes()) {
      if (node.spec?.providerID?.endsWith(`/${instanceId}`)) await this.sim.deleteNode(node.metadata.name);
    }
  }

  get(instanceId: string) {
    return this.cloud.get(instanceId);
  }
  list() {
    return this.cloud.list();
  }
  getInstanceTypes(nodeClass: EC2NodeClass) {
    return this.cloud.getInstanceTypes(nodeClass);
  }
  isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass) {
    return this.cloud.isDrifted(claim, nodeClass);
  }
  describeNodeClass(nodeClass: EC2NodeClass): Promise<NodeClassResolution> {
    return this.cloud.describeNodeClass(nodeClass);
  }
  deleteStaleLaunchTemplates() {
    return this.cloud.deleteStaleLaunchTemplates();
  }
}

export interface ReadBack {
  /** Live claims in the store whose instance is still running; their nodes joined the local cluster. */
  joined: { claim: string; instanceId: string; node: string }[];
  /** This cluster's live instances in EC2 that no live claim records (GC's business). */
  unclaimed: string[];
}

/**
 * Joins the nodes of a previous run: every live claim whose instance EC2 still runs gets its Node back (same name,
 * labels and taints, Ready, initialized), as a real cluster would still have it.
 */
export async function readBack(
  cloud: AwsCloudProvider,
  store: NodeClaimStore,
  sim: SimCluster,
  typeOf: (claim: NodeClaim) => Promise<InstanceType | undefined>,
  now: string,
): Promise<ReadBack> {
  const [instances, claims] = await Promise.all([cloud.list(), store.list({ states: LIVE_STATES })]);
  const running = new Map(instances.map((i) => [i.instanceId, i]));
  const out: ReadBack = { joined: [], unclaimed: [] };
  const claimed = new Set<string>();
  for (const claim of claims) {
    const instance = claim.instanceId ? running.get(claim.instanceId) : undefined;
    if (!instance || claim.state === 'Draining') continue;
    claimed.add(instance.instanceId);
    const type = await typeOf(claim);
    if (!type) continue;
    const name = claim.nodeName ?? `ip-${instance.instanceId.slice(2, 14)}.ec2.internal`;
    sim.addNode(joinedNode(name, claim, instance, type, now));
    // The pods the claim was nominated for ran there; a real cluster would still have them bound. kube-scheduler's
    // stand-in only follows this run's nominations, so put them back (by name: this run's pods have new uids).
    for (const pod of claim.nominatedPods) await sim.bindPod({ namespace: pod.namespace, name: pod.name }, name);
    out.joined.push({ claim: claim.name, instanceId: instance.instanceId, node: name });
  }
  out.unclaimed = instances.filter((i) => !claimed.has(i.instanceId)).map((i) => i.instanceId);
  return out;
}

function joinedNode(name: string, claim: NodeClaim, instance: CloudInstance, type: InstanceType, now: string): Node {
  const initialized = claim.state === 'Initialized';
  return {
    kind: 'Node',
    metadata: {
      name,
      uid: `node-${instance.instanceId}`,
      creationTimestamp: claim.stateTimes.Registered ?? now,
      labels: {
        ...launchedNodeLabels(name, claim, instance, type),
        // Registration names the claim on its node; the simulated kube-scheduler finds a claim's node by it.
        [LabelNodeClaim]: claim.name,
        ...(initialized ? { [LabelNodeInitialized]: 'true' } : {}),
      },
    },
    spec: {
      providerID: instance.providerID,
      taints: initialized ? [...claim.taints] : [...claim.taints, ...claim.startupTaints],
    },
    status: {
      ...launchedNodeResources(type),
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
    },
  };
}
