// kube-scheduler's part in the simulated cluster. Karpless, like Karpenter, only nominates: it emits a `Nominated`
// event ("Pod should schedule on: nodeclaim/NAME" or "node/NAME") and leaves the binding to kube-scheduler unless
// `bindPods` is opted in (docs/kubernetes.md, "Binding"). A simulation needs someone to bind, so this stands in for
// kube-scheduler: it binds a pending pod to the node it was nominated to once that node passes the filters
// kube-scheduler would apply (Ready, schedulable, taints tolerated, node selector and required node affinity,
// resources free). A claim's node is found only after Karpless registered it (the karpless.dev/nodeclaim label):
// until then the real node carries `karpenter.sh/unregistered:NoExecute` and kube-scheduler cannot place anything.
// It follows nominations rather than choosing nodes itself, so simulations stay the plans Karpless made; a pod whose
// nominated node no longer fits stays pending until Karpless nominates it again (its nomination TTL).
import type { Node, NodeSelectorTerm, Pod } from '../api/kube';
import { LabelNodeClaim } from '../api/labels';
import { parseResourceList, type ResourceList } from '../api/resources';
import { requirementAllows } from '../api/selector';
import { podRequests, toleratesHardTaints } from '../scheduling';

/** What the scheduler reads and writes in the cluster. */
export interface SchedulerCluster {
  node(name: string): Node | undefined;
  nodes(): Iterable<Node>;
  pod(key: string): Pod | undefined;
  pods(): Iterable<Pod>;
  bind(key: string, nodeName: string): void;
}

const NOMINATION = /^Pod should schedule on: (nodeclaim|node)\/(\S+)$/;

/** The target of a Karpenter-style Nominated event message, e.g. `nodeclaim/default-x7k2p`. */
export function nominationTarget(message: string): string | undefined {
  const m = NOMINATION.exec(message);
  return m ? `${m[1]}/${m[2]}` : undefined;
}

export class SimScheduler {
  /** Pod key → nomination target (`node/NAME` or `nodeclaim/NAME`), for pods still pending. */
  private readonly nominations = new Map<string, string>();
  /** Requests of the pods bound to each node, computed on demand and dropped when that node's pods change. */
  private readonly usage = new Map<string, ResourceList>();
  private running = false;

  constructor(private readonly cluster: SchedulerCluster) {}

  /** A Nominated event for a pod: remember where it should go, and bind it if that node is ready for it. */
  nominate(podKey: string, target: string): void {
    this.nominations.set(podKey, target);
    this.tryPods([podKey]);
  }

  /** A pod left (evicted, deleted) or came back as a new pod: its nomination is void. */
  forget(podKey: string): void {
    this.nominations.delete(podKey);
  }

  /** The pods bound to a node changed behind the scheduler's back. */
  invalidate(nodeName: string): void {
    this.usage.delete(nodeName);
  }

  /** A node changed (registered by Karpless, turned Ready, lost a taint, freed capacity): place what waits for it. */
  nodeChanged(nodeName: string): void {
    this.usage.delete(nodeName);
    const node = this.cluster.node(nodeName);
    const targets = new Set([`node/${nodeName}`]);
    const claim = node?.metadata.labels?.[LabelNodeClaim];
    if (claim) targets.add(`nodeclaim/${claim}`);
    const waiting: string[] = [];
    for (const [key, target] of this.nominations) if (targets.has(target)) waiting.push(key);
    if (waiting.length > 0) this.tryPods(waiting);
  }

  private tryPods(keys: string[]): void {
    // Binding emits changes that call back in here; one pass at a time is enough.
    if (this.running) return;
    this.running = true;
    try {
      for (const key of keys) {
        const target = this.nominations.get(key);
        const pod = this.cluster.pod(key);
        if (!target || !pod || pod.spec.nodeName) {
          this.nominations.delete(key);
          continue;
        }
        const node = this.resolve(target);
        if (!node || !this.fits(pod, node)) continue;
        this.nominations.delete(key);
        this.cluster.bind(key, node.metadata.name);
        this.add(node.metadata.name, pod);
      }
    } finally {
      this.running = false;
    }
  }

  private resolve(target: string): Node | undefined {
    const slash = target.indexOf('/');
    const kind = target.slice(0, slash);
    const name = target.slice(slash + 1);
    if (kind === 'node') return this.cluster.node(name);
    for (const node of this.cluster.nodes()) if (node.metadata.labels?.[LabelNodeClaim] === name) return node;
    return undefined;
  }

  /** kube-scheduler's filters that matter here: NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit;
   * and a node that is not Ready (the node lifecycle controller's not-ready taint). */
  private fits(pod: Pod, node: Node): boolean {
    if (node.spec.unschedulable || node.metadata.deletionTimestamp) return false;
    if (!node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return false;
    if (!toleratesHardTaints(node.spec.taints ?? [], pod.spec.tolerations ?? [])) return false;
    if (!matchesNodeAffinity(pod, node)) return false;
    const allocatable = parseResourceList(node.status.allocatable);
    const used = this.used(node.metadata.name);
    for (const [name, quantity] of Object.entries(podRequests(pod))) {
      if (quantity > 0 && (used[name] ?? 0) + quantity > (allocatable[name] ?? 0)) return false;
    }
    return true;
  }

  private used(nodeName: string): ResourceList {
    let used = this.usage.get(nodeName);
    if (!used) {
      used = {};
      for (const pod of this.cluster.pods()) {
        if (pod.spec.nodeName !== nodeName) continue;
        if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
        addInto(used, podRequests(pod));
      }
      this.usage.set(nodeName, used);
    }
    return used;
  }

  private add(nodeName: string, pod: Pod): void {
    const used = this.usage.get(nodeName);
    if (used) addInto(used, podRequests(pod));
  }
}

function addInto(into: ResourceList, add: ResourceList): void {
  for (const [k, v] of Object.entries(add)) into[k] = (into[k] ?? 0) + v;
}

function matchesNodeAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms || terms.length === 0) return true;
  return terms.some((t) => termMatches(t, labels, node.metadata.name));
}

/** A term's expressions and fields are ANDed; the only field kube-scheduler supports is metadata.name. */
function termMatches(term: NodeSelectorTerm, labels: Record<string, string>, name: string): boolean {
  if (!(term.matchExpressions?.length || term.matchFields?.length)) return false;
  for (const r of term.matchExpressions ?? []) if (!requirementAllows(r, labels[r.key])) return false;
  for (const r of term.matchFields ?? []) {
    if (!requirementAllows(r, r.key === 'metadata.name' ? name : undefined)) return false;
  }
  return true;
}
