// The sweep's fast capacity model: each node's free resources as a dense vector, updated as commands move pods, so
// "do these pods fit on the nodes that stay?" costs a scan instead of a full solve. It judges resources, node
// selectors, required node affinity and taints; pods that depend on other pods or volumes go to the solver.
import type { Pod } from '../api/kube';
import { TaintDisrupted } from '../api/labels';
import { tolerates } from '../api/pods';
import { labelSatisfies } from './drift';
import { FreeIndex } from './free-index';
import { podRequests } from './pods';
import type { DisruptionNode } from './types';

export interface Placement {
  node: number;
  pod: Pod;
}

export interface FitResult {
  placements: Placement[];
  leftovers: Pod[];
}

function podConstraintKey(pod: Pod): string {
  return JSON.stringify([
    pod.spec.nodeSelector ?? null,
    pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null,
    pod.spec.tolerations ?? null,
  ]);
}

function admits(node: DisruptionNode, pod: Pod): boolean {
  const labels = node.node.labels;
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms?.length) {
    const ok = terms.some((t) =>
      (t.matchExpressions ?? []).every((e) =>
        labels[e.key] === undefined
          ? e.operator === 'NotIn' || e.operator === 'DoesNotExist'
          : labelSatisfies(labels, { key: e.key, operator: e.operator, values: e.values ?? [] }),
      ),
    );
    if (!ok) return false;
  }
  for (const taint of node.node.taints) {
    if (taint.effect === 'PreferNoSchedule') continue;
    if (!tolerates(pod.spec.tolerations, taint)) return false;
  }
  return true;
}

export class CapacityModel {
  private readonly names = new Map<string, number>();
  private readonly free: Float64Array[];
  private readonly vectors = new WeakMap<Pod, Float64Array>();
  private readonly compat = new Map<string, Int8Array>();
  private readonly rows = new WeakMap<Pod, Int8Array>();
  /** Nodes that take no pods: going away, disrupting, in flight, or drifted/expired (moving pods there is churn).
   * Read it here; close a node with `close`, which also takes it out of the first-fit index. */
  readonly closed: Uint8Array;
  /** Nodes that took pods this sweep; they are no longer consolidation candidates. */
  readonly receivers: Uint8Array;
  /** Pods moved onto each node this sweep. */
  readonly moved: Pod[][];
  private readonly index: FreeIndex;

  constructor(readonly nodes: readonly DisruptionNode[]) {
    for (const n of nodes) for (const k of Object.keys(n.node.allocatable)) this.resource(k);
    this.free = nodes.map((n) => {
      const v = new Float64Array(this.names.size);
      for (const [k, i] of this.names) v[i] = n.node.allocatable[k] ?? 0;
      for (const p of n.node.pods) {
        const r = this.vector(p);
        for (let i = 0; i < r.length; i++) v[i] = (v[i] as number) - (r[i] as number);
      }
      return v;
    });
    this.closed = new Uint8Array(nodes.length);
    this.receivers = new Uint8Array(nodes.length);
    this.moved = nodes.map(() => []);
    nodes.forEach((n, i) => {
      const tainted = n.node.taints.some((t) => t.key === TaintDisrupted.key);
      // In-flight nodes take no moved pods either: the candidate would drain before they are known to come up.
      if (n.node.markedForDeletion || n.node.inflight || n.claim.state === 'Draining' || tainted) this.closed[i] = 1;
    });
    const cpu = this.names.get('cpu');
    const freeCpu = (i: number): number => (cpu === undefined ? 0 : ((this.free[i] as Float64Array)[cpu] as number));
    // Fuller nodes first: pods pack onto nodes that stay rather than onto the next candidates.
    const order = nodes.map((_, i) => i).sort((a, b) => freeCpu(a) - freeCpu(b) || a - b);
    this.index = new FreeIndex(order, this.free, this.names.size);
    for (let i = 0; i < nodes.length; i++) if (this.closed[i]) this.index.remove(i);
  }

  /** The node takes no more pods (it is leaving, or moving pods there would be churn). */
  close(node: number): void {
    if (this.closed[node]) return;
    this.closed[node] = 1;
    this.index.remove(node);
  }

  private resource(name: string): number {
    let i = this.names.get(name);
    if (i === undefined) {
      i = this.names.size;
      this.names.set(name, i);
    }
    return i;
  }

  /** The pod's requests as a vector over the nodes' resources; a resource no node offers makes it unplaceable. */
  vector(pod: Pod): Float64Array {
    let v = this.vectors.get(pod);
    if (v) return v;
    const r = podRequests(pod);
    v = new Float64Array(this.names.size);
    let unplaceable = false;
    for (const k in r) {
      const i = this.names.get(k);
      if (i !== undefined) v[i] = r[k] as number;
      else if ((r[k] as number) > 0) unplaceable = true;
    }
    if (unplaceable) v.fill(Number.POSITIVE_INFINITY);
    this.vectors.set(pod, v);
    return v;
  }

  private compatRow(pod: Pod): Int8Array {
    let row = this.rows.get(pod);
    if (row) return row;
    const key = podConstraintKey(pod);
    row = this.compat.get(key);
    if (!row) {
      row = new Int8Array(this.nodes.length).fill(-1);
      this.compat.set(key, row);
    }
    this.rows.set(pod, row);
    return row;
  }

  private admitted(pod: Pod, node: number): boolean {
    const row = this.compatRow(pod);
    let v = row[node] as number;
    if (v < 0) {
      v = admits(this.nodes[node] as DisruptionNode, pod) ? 1 : 0;
      row[node] = v;
    }
    return v === 1;
  }

  /**
   * Places pods (largest cpu first) on open nodes outside `exclude`, tentatively. With `allOrNothing` it stops at
   * the first pod that does not fit. Call `commit` or `rollback` with the result.
   */
  fit(pods: readonly Pod[], exclude: ReadonlySet<number>, allOrNothing = false): FitResult {
    const cpu = this.names.get('cpu') ?? 0;
    const sorted = [...pods].sort((a, b) => (this.vector(b)[cpu] as number) - (this.vector(a)[cpu] as number));
    const placements: Placement[] = [];
    const leftovers: Pod[] = [];
    for (const pod of sorted) {
      const v = this.vector(pod);
      // The first open node outside `exclude`, in order, with room for the pod and admitting it.
      const node = Number.isFinite(v[0] as number)
        ? this.index.first(v, (n) => !this.closed[n] && !exclude.has(n) && this.admitted(pod, n))
        : -1;
      if (node >= 0) {
        this.take(node, v, -1);
        placements.push({ node, pod });
      } else {
        leftovers.push(pod);
        if (allOrNothing) break;
      }
    }
    return { placements, leftovers };
  }

  rollback(result: FitResult): void {
    for (const p of result.placements) this.take(p.node, this.vector(p.pod), 1);
  }

  commit(result: FitResult): void {
    for (const p of result.placements) {
      this.receivers[p.node] = 1;
      (this.moved[p.node] as Pod[]).push(p.pod);
    }
  }

  private take(node: number, v: Float64Array, sign: number): void {
    const f = this.free[node] as Float64Array;
    for (let i = 0; i < v.length; i++) f[i] = (f[i] as number) + sign * (v[i] as number);
    if (!this.closed[node]) this.index.update(node);
  }

  /** Tentatively places pods where the solver put them, without checks; commit or roll back like `fit`. */
  place(placements: Placement[]): FitResult {
    for (const p of placements) this.take(p.node, this.vector(p.pod), -1);
    return { placements, leftovers: [] };
  }

  /** Reserves room for pods that are waiting (pending pods come before consolidation). */
  reserve(pods: readonly Pod[]): void {
    const r = this.fit(pods, new Set());
    for (const p of r.placements) (this.moved[p.node] as Pod[]).push(p.pod);
  }
}
