// Builders for raw watch objects, shared by the forwarder's tests and the memory benchmark.
import { unschedulableCondition } from '../test/fake-kube-api/fixtures';
import { ownedBy, pod } from './builders';

/** A pending pod as a watch delivers it: typed, with an image, env, the default not-ready toleration, the
 * Unschedulable condition and a QoS class (fields the forwarder must slim away). */
export function pendingPod(
  name: string,
  namespace = 'default',
  extra: { nodeName?: string; daemonSet?: boolean } = {},
) {
  const p = pod({
    typed: true,
    name,
    namespace,
    uid: `uid-${namespace}-${name}`,
    labels: { app: name.replace(/-\d+$/, '') },
    ...(extra.daemonSet ? { ownerReferences: ownedBy('DaemonSet', 'ds') } : {}),
    ...(extra.nodeName ? { nodeName: extra.nodeName } : {}),
    containers: [
      {
        name: 'app',
        image: 'public.ecr.aws/nginx/nginx:1.27',
        resources: { requests: { cpu: '250m', memory: '256Mi' } },
      },
    ],
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
  });
  return {
    ...p,
    spec: {
      ...p.spec,
      containers: p.spec.containers.map((c) => ({ ...c, env: [{ name: 'MODE', value: 'production' }] })),
    },
    status: { phase: 'Pending', conditions: [unschedulableCondition()], qosClass: 'Burstable' },
  };
}

export function readyNode(
  name: string,
  extra: {
    taints?: { key: string; effect: string }[];
    ready?: boolean;
    /** More conditions, as a node monitoring agent or node-problem-detector adds them. */
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: { providerID: `aws:///us-east-1a/i-${name}`, taints: extra.taints ?? [] },
    status: {
      conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }, ...(extra.conditions ?? [])],
    },
  };
}

/** A NodeClaim object as the mirror writes it (shared/api/nodeclaim-object.ts) and a watch delivers it: Karpless's
 * managed-by label and termination finalizer, a status the forwarder must ignore; `deleting` adds the deletion mark
 * `kubectl delete` leaves while the finalizer holds it, and `foreign` drops the label (Karpenter's own NodeClaim). */
export function mirroredNodeClaim(
  name: string,
  extra: { deleting?: boolean; foreign?: boolean; ready?: boolean } = {},
) {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: {
        'karpenter.sh/nodepool': 'default',
        'node.kubernetes.io/instance-type': 'm5.large',
        ...(extra.foreign ? {} : { 'app.kubernetes.io/managed-by': 'karpless' }),
      },
      finalizers: ['karpenter.sh/termination'],
      ...(extra.deleting ? { deletionTimestamp: '2026-11-21T21:05:00Z' } : {}),
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
      resources: { requests: { cpu: '1' } },
    },
    status: {
      providerID: `aws:///us-east-1a/i-${name}`,
      nodeName: `ip-${name}`,
      conditions: [{ type: 'Ready', status: extra.ready === false ? 'Unknown' : 'True' }],
    },
  };
}
