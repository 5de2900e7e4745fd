// The API server's defaulting of container resources: a resource with a limit but no request is requested at its
// limit. The scheduler must see the same requests the cluster would, so parsed pod specs get it too.
import type { Container, PodSpec } from './kube';

function defaultRequests(c: Container): Container {
  const limits = c.resources?.limits;
  if (!limits) return c;
  const requests = { ...(c.resources?.requests ?? {}) };
  let changed = false;
  for (const [name, q] of Object.entries(limits)) {
    if (requests[name] === undefined) {
      requests[name] = q;
      changed = true;
    }
  }
  return changed ? { ...c, resources: { ...c.resources, requests } } : c;
}

export function withPodSpecDefaults(spec: PodSpec): PodSpec {
  return {
    ...spec,
    containers: spec.containers.map(defaultRequests),
    ...(spec.initContainers ? { initContainers: spec.initContainers.map(defaultRequests) } : {}),
  };
}
