// The tags Karpless puts on everything it creates (docs/aws.md, Tags Karpless writes). IAM policy conditions key
// on them, so the keys are exported for the stack.
import type { NodeClaim } from '../../api/nodeclaim';

export const TagNodePool = 'karpenter.sh/nodepool';
export const TagNodeClaim = 'karpenter.sh/nodeclaim';
export const TagNodeClass = 'karpenter.k8s.aws/ec2nodeclass';
export const TagKarplessCluster = 'karpless.dev/cluster';
/** The claim's uid: names are reused across a claim's replacement, uids never are, so replay lookups key on it. */
export const TagNodeClaimUid = 'karpless.dev/nodeclaim-uid';
/** Set by EC2 on every instance launched from a launch template: the template's id. */
export const TagLaunchTemplateId = 'aws:ec2launchtemplate:id';
export const clusterOwnedTagKey = (cluster: string) => `kubernetes.io/cluster/${cluster}`;

/** Tags that mark a resource as this cluster's. */
export function clusterTags(cluster: string): Record<string, string> {
  return { [clusterOwnedTagKey(cluster)]: 'owned', [TagKarplessCluster]: cluster };
}

/** Tags for an instance, its volumes and ENIs. The user's EC2NodeClass tags come first so ours always win. */
export function instanceTags(
  cluster: string,
  claim: Pick<NodeClaim, 'name' | 'uid' | 'nodePool' | 'nodeClass'>,
  userTags: Record<string, string> = {},
): Record<string, string> {
  return {
    Name: `${claim.nodePool}/${claim.name}`,
    ...userTags,
    ...clusterTags(cluster),
    [TagNodePool]: claim.nodePool,
    [TagNodeClaim]: claim.name,
    [TagNodeClaimUid]: claim.uid,
    [TagNodeClass]: claim.nodeClass,
  };
}

export const toTagList = (tags: Record<string, string>) =>
  Object.entries(tags)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([Key, Value]) => ({ Key, Value }));
