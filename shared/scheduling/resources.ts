// What a pod asks of a node, by Kubernetes' rules: running containers and restartable sidecars run together; each
// ordinary init container runs alone next to the sidecars started before it; the pod needs the larger of the two
// peaks, plus its runtime overhead, plus one pod slot.
import type { Container, Pod, QuantityMap } from '../api/kube';
import { parseResource } from '../api/quantity';
import { PODS, type ResourceList } from '../api/resources';

/** Requests default to limits for a resource that sets only a limit (the API server's defaulting). */
export function containerRequests(c: Container): ResourceList {
  const out: ResourceList = {};
  addQuantities(out, c.resources?.limits);
  const req = c.resources?.requests;
  // Keys by `for...in`, in the order Object.entries gives them, without an array per key (read once per pod whose
  // requests are new: with every request distinct, every pod).
  if (req) for (const k in req) out[k] = parseResource(k, req[k] as string | number);
  return out;
}

export function podRequests(pod: Pod): ResourceList {
  const containers = pod.spec.containers ?? [];
  // Most pods have one container: its list is the running total, with no second list to add it into (read for every
  // pod whose requests are new: with every request distinct, every pod).
  let running: ResourceList;
  if (containers.length === 1) running = containerRequests(containers[0] as Container);
  else {
    running = {};
    for (const c of containers) addInto(running, containerRequests(c));
  }
  // Most pods have no init containers: their peak is the running total (the copy below would be the same list).
  const total = pod.spec.initContainers?.length ? withInitContainers(running, pod.spec.initContainers) : running;
  addQuantities(total, pod.spec.overhead);
  total[PODS] = (total[PODS] ?? 0) + 1;
  for (const k in total) if (total[k] === 0 && k !== PODS) delete total[k];
  return total;
}

/** The larger of the running containers' total and the init containers' peak. */
function withInitContainers(running: ResourceList, initContainers: readonly Container[]): ResourceList {
  const sidecars: ResourceList = {};
  const initPeak: ResourceList = {};
  for (const c of initContainers) {
    const r = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      addInto(sidecars, r);
      maxInto(initPeak, sidecars);
    } else {
      const during: ResourceList = { ...sidecars };
      addInto(during, r);
      maxInto(initPeak, during);
    }
  }
  addInto(running, sidecars);
  return maxInto({ ...running }, initPeak);
}

function addQuantities(into: ResourceList, q: QuantityMap | undefined): void {
  if (q) for (const k in q) into[k] = (into[k] ?? 0) + parseResource(k, q[k] as string | number);
}

function addInto(a: ResourceList, b: ResourceList): ResourceList {
  for (const k in b) a[k] = (a[k] ?? 0) + (b[k] as number);
  return a;
}

function maxInto(a: ResourceList, b: ResourceList): ResourceList {
  for (const k in b) a[k] = Math.max(a[k] ?? 0, b[k] as number);
  return a;
}

/**
 * Dense resource vectors: the solver numbers every resource name it meets once per solve so hot loops compare
 * Float64Arrays instead of walking object keys.
 */
export class ResourceIndex {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  constructor(initial: readonly string[] = ['cpu', 'memory', PODS]) {
    for (const n of initial) this.id(n);
  }

  id(name: string): number {
    let i = this.ids.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.ids.set(name, i);
      this.names.push(name);
    }
    return i;
  }

  lookup(name: string): number | undefined {
    return this.ids.get(name);
  }

  /** Registers every name in the list; call before `vector` so all vectors share one length. */
  register(list: ResourceList): void {
    for (const k in list) this.id(k);
  }

  vector(list: ResourceList): Float64Array {
    return this.fill(new Float64Array(this.names.length), list);
  }

  /** Writes the list into a zeroed vector of `names.length` entries (a view of a larger buffer, say). */
  fill(v: Float64Array, list: ResourceList): Float64Array {
    for (const k in list) {
      const i = this.ids.get(k);
      if (i !== undefined) v[i] = list[k] as number;
    }
    return v;
  }

  toList(v: Float64Array): ResourceList {
    const out: ResourceList = {};
    for (let i = 0; i < v.length; i++) if (v[i] !== 0) out[this.names[i] as string] = v[i] as number;
    return out;
  }
}

/** used + extra ≤ cap in every dimension. */
export function fitsVec(used: Float64Array, extra: Float64Array, cap: Float64Array): boolean {
  for (let i = 0; i < extra.length; i++) {
    const e = extra[i] as number;
    if (e > 0 && (used[i] as number) + e > (cap[i] as number)) return false;
  }
  return true;
}

export function addVec(into: Float64Array, v: Float64Array): void {
  for (let i = 0; i < v.length; i++) into[i] = (into[i] as number) + (v[i] as number);
}
