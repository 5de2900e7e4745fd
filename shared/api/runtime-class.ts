// What the RuntimeClass admission controller does to a pod at creation, so plain manifests reach the engine as the
// API server would store them: `overhead.podFixed` becomes the pod's `spec.overhead` when the pod sets none, and the
// class's `scheduling` node selector and tolerations join the pod's. Pods read from a cluster already went through
// admission; for them this changes nothing (their overhead is set, the selector and tolerations already merged).
import type { Pod, RuntimeClass, Toleration } from './kube';

export function withRuntimeClass(pod: Pod, classes: ReadonlyMap<string, RuntimeClass>, warnings: string[]): Pod {
  const name = pod.spec.runtimeClassName;
  if (!name) return pod;
  const rc = classes.get(name);
  if (!rc) {
    const warning = `${pod.metadata.namespace}/${pod.metadata.name}: spec.runtimeClassName: RuntimeClass "${name}" is not among the manifests; its overhead is not counted`;
    if (!warnings.includes(warning)) warnings.push(warning);
    return pod;
  }
  const spec = { ...pod.spec };
  const podFixed = rc.overhead?.podFixed;
  if (podFixed && !spec.overhead) spec.overhead = { ...podFixed };
  const selector = rc.scheduling?.nodeSelector;
  if (selector) spec.nodeSelector = { ...selector, ...spec.nodeSelector };
  const tolerations = rc.scheduling?.tolerations;
  if (tolerations?.length) spec.tolerations = mergeTolerations(spec.tolerations ?? [], tolerations);
  return { ...pod, spec };
}

function mergeTolerations(own: readonly Toleration[], added: readonly Toleration[]): Toleration[] {
  const seen = new Set(own.map((t) => JSON.stringify(t)));
  return [...own, ...added.filter((t) => !seen.has(JSON.stringify(t)))];
}
