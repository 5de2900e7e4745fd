// The two RBAC roles Karpless needs, as data, so the manifests and their tests share one source of truth.
// Each verb is one the code actually calls (docs/kubernetes.md, "RBAC", has the table of what each is for):
// - the forwarder lists and watches what it watches, and never reads a single object (list + watch only): on
//   NodeClaims only for their deletion marks, on NodeOverlays for the re-plan their changes call for;
// - the Lambda functions list what the engine reads (paginated lists, never watches), get a node before a guarded
//   patch, patch and delete nodes, create evictions and events, and patch the status subresource of
//   NodePools and EC2NodeClasses. pods/binding is granted only when binding is opted in (`bindPods`); by default
//   kube-scheduler binds. Which nodes may be patched or deleted is narrowed further by the admission policy
//   (forwarder/admission-policy.ts): RBAC cannot select objects by label.

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export const FORWARDER_RULES: PolicyRule[] = [
  { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['list', 'watch'] },
  { apiGroups: ['karpenter.sh'], resources: ['nodepools', 'nodeoverlays', 'nodeclaims'], verbs: ['list', 'watch'] },
  { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses'], verbs: ['list', 'watch'] },
];

export interface ControllerRbacOptions {
  /** Karpless binds nominated pods itself (clusters.yaml `bindPods: true`): grant create on pods/binding. */
  bindPods?: boolean;
}

export function controllerRules(options: ControllerRbacOptions = {}): PolicyRule[] {
  return [
    {
      apiGroups: [''],
      resources: ['pods', 'nodes', 'namespaces', 'persistentvolumeclaims', 'persistentvolumes'],
      verbs: ['list'],
    },
    { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['list'] },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['list'] },
    // CSINodes give each node's volume attach limits (docs/simulate-dump.md, Volume attach limits).
    { apiGroups: ['storage.k8s.io'], resources: ['storageclasses', 'csinodes'], verbs: ['list'] },
    // NodeOverlays are listed on each provisioning pass (docs/api.md, "NodeOverlay").
    { apiGroups: ['karpenter.sh'], resources: ['nodepools', 'nodeoverlays'], verbs: ['list'] },
    { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses'], verbs: ['list'] },
    // get: the disrupted-taint and label/taint patches read the node first and test its resourceVersion.
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
    ...(options.bindPods ? [{ apiGroups: [''], resources: ['pods/binding'], verbs: ['create'] }] : []),
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    { apiGroups: ['karpenter.sh'], resources: ['nodepools/status'], verbs: ['patch'] },
    // The NodeClaim mirror (docs/kubernetes.md, NodeClaim objects): its objects and their status, nothing else. list
    // also reads deletion marks (kubectl delete nodeclaim) and finalizers; patch puts karpenter.sh/termination on and
    // takes it off; no get, update or watch.
    { apiGroups: ['karpenter.sh'], resources: ['nodeclaims'], verbs: ['list', 'create', 'patch', 'delete'] },
    { apiGroups: ['karpenter.sh'], resources: ['nodeclaims/status'], verbs: ['patch'] },
    { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses/status'], verbs: ['patch'] },
  ];
}
