// Names shared between the stack, the docs and the manifests the CLI prints.

/** Tag keys every launched instance and launch template carries (docs/aws.md); IAM conditions key on them. */
export const TAG_NODEPOOL = 'karpenter.sh/nodepool';
export const TAG_CLUSTER_PREFIX = 'kubernetes.io/cluster/';
export const TAG_KARPLESS_CLUSTER = 'karpless.dev/cluster';

export const stackName = (cluster: string) => `karpless-${cluster}`;
export const functionName = (cluster: string, fn: string) => `karpless-${cluster}-${fn}`;
