// The forwarder's default namespace and name, apart from the manifests so the CLI's help can show them without
// loading the YAML library.
export const FORWARDER_NAMESPACE = 'karpless';
export const FORWARDER_NAME = 'karpless-forwarder';
