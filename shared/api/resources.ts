// Resource lists in engine units (see quantity.ts). Plain objects keep them cheap to copy and easy to serialize.
import type { QuantityMap } from './kube';
import { formatResource, parseResource } from './quantity';

export type ResourceList = Record<string, number>;

export const CPU = 'cpu';
export const MEMORY = 'memory';
export const PODS = 'pods';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const NVIDIA_GPU = 'nvidia.com/gpu';
export const AMD_GPU = 'amd.com/gpu';
export const AWS_NEURON = 'aws.amazon.com/neuron';
export const AWS_NEURON_CORE = 'aws.amazon.com/neuroncore';
export const AWS_POD_ENI = 'vpc.amazonaws.com/pod-eni';
export const EFA = 'vpc.amazonaws.com/efa';
/** Secondary IPv4 addresses of a Windows node's primary ENI, one per pod (the VPC resource controller's resource). */
export const PRIVATE_IPV4_ADDRESS = 'vpc.amazonaws.com/PrivateIPv4Address';

export function parseResourceList(map: QuantityMap | undefined): ResourceList {
  const out: ResourceList = {};
  if (!map) return out;
  for (const [name, q] of Object.entries(map)) out[name] = parseResource(name, q);
  return out;
}

export function formatResourceList(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(list)) out[name] = formatResource(name, v);
  return out;
}

export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Adds b into a in place; used on hot paths where allocation matters. */
export function addInto(a: ResourceList, b: ResourceList): ResourceList {
  for (const k in b) a[k] = (a[k] ?? 0) + (b[k] as number);
  return a;
}

export function subtract(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) - v;
  return out;
}

/** Element-wise max: the init-container rule. */
export function max(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = Math.max(out[k] ?? 0, v);
  return out;
}

/** True when every requested resource fits in what is available (a missing resource has zero available). */
export function fits(requests: ResourceList, available: ResourceList): boolean {
  for (const k in requests) {
    const r = requests[k] as number;
    if (r > 0 && r > (available[k] ?? 0)) return false;
  }
  return true;
}

/** The first resource that does not fit, for explanations. */
export function firstExceeded(requests: ResourceList, available: ResourceList): string | undefined {
  for (const k in requests) {
    const r = requests[k] as number;
    if (r > 0 && r > (available[k] ?? 0)) return k;
  }
  return undefined;
}

export function isZero(list: ResourceList): boolean {
  for (const k in list) if ((list[k] as number) !== 0) return false;
  return true;
}
