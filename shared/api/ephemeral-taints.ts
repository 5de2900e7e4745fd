// Known ephemeral startup taints, shared by scheduling (in-flight nodes) and the lifecycle controller
// (initialization), which ship in different Lambdas: it lives here so that neither pulls the other's code.
import type { Taint } from './kube';
import { TaintUnregistered } from './labels';

/** Taints a node carries while it comes up and loses once initialized (Karpenter's known ephemeral taints): kubelet's
 * not-ready and unreachable, the cloud provider's uninitialized taint, Karpenter's unregistered taint, and the Node
 * Readiness Controller's readiness.k8s.io/ family. Matched on key and effect, as Kubernetes matches taints. */
const EPHEMERAL_TAINTS: readonly Pick<Taint, 'key' | 'effect'>[] = [
  { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
  { key: 'node.cloudprovider.kubernetes.io/uninitialized', effect: 'NoSchedule' },
  TaintUnregistered,
];
const EPHEMERAL_TAINT_PREFIXES = ['readiness.k8s.io/'];

export function isEphemeralTaint(t: Taint): boolean {
  return (
    EPHEMERAL_TAINTS.some((e) => e.key === t.key && e.effect === t.effect) ||
    EPHEMERAL_TAINT_PREFIXES.some((prefix) => t.key.startsWith(prefix))
  );
}
