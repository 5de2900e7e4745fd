// The Kubernetes group the control plane acts as: the functions' EKS access entries map to it (stacks/) and the
// project's ClusterRole is bound to it (forwarder/manifests.ts). A name both deployables share, so it lives below
// them (docs/architecture.md, "Layers").
export const CONTROLLER_GROUP = 'karpless-controller';
