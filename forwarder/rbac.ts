// The two RBAC roles Karpless needs, as data, so the manifests and their tests share one source of truth.
// The forwarder only reads what it watches. The Lambda functions (through their EKS access entry) read what the
// engine reads and write exactly: pod bindings, evictions, node patches and deletes, events, and the status
// subresource of NodePools and EC2NodeClasses (published on the Sweep tick; never their spec).

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const READ = ['get', 'list', 'watch'];

export const FORWARDER_RULES: PolicyRule[] = [
  { apiGroups: [''], resources: ['pods', 'nodes'], verbs: READ },
  { apiGroups: ['karpenter.sh'], resources: ['nodepools'], verbs: READ },
  { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses'], verbs: READ },
];

export const CONTROLLER_RULES: PolicyRule[] = [
  {
    apiGroups: [''],
    resources: ['pods', 'nodes', 'namespaces', 'persistentvolumeclaims', 'persistentvolumes'],
    verbs: READ,
  },
  { apiGroups: ['apps'], resources: ['daemonsets'], verbs: READ },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: READ },
  { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: READ },
  { apiGroups: ['karpenter.sh'], resources: ['nodepools'], verbs: READ },
  // The provisioner only lists NodeOverlays on each pass (docs/api.md, "NodeOverlay").
  { apiGroups: ['karpenter.sh'], resources: ['nodeoverlays'], verbs: ['list'] },
  { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses'], verbs: READ },
  { apiGroups: [''], resources: ['pods/binding', 'pods/eviction'], verbs: ['create'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['patch', 'delete'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  { apiGroups: ['karpenter.sh'], resources: ['nodepools/status'], verbs: ['patch'] },
  // The NodeClaim mirror (docs/kubernetes.md, NodeClaim objects): its objects and their status, nothing else.
  { apiGroups: ['karpenter.sh'], resources: ['nodeclaims'], verbs: ['list', 'create', 'patch', 'delete'] },
  { apiGroups: ['karpenter.sh'], resources: ['nodeclaims/status'], verbs: ['patch'] },
  { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses/status'], verbs: ['patch'] },
];
