// How many EBS volumes a new node of a type can attach: the count the EBS CSI driver will publish in the node's
// CSINode, computed as the driver computes it when it starts (docs/catalog.md, EBS volume limit). The scheduler
// holds a new NodeClaim to it, so a claim never takes more EBS volumes than its node will accept.
import type { EC2NodeClass } from '../api/karpenter';
import type { InstanceTypeInfo } from './types';
import { amiFamilyOf } from './volumes';

export const EBS_CSI_DRIVER = 'ebs.csi.aws.com';

/** Xen types attach up to 39 volumes, not shared with network interfaces (the driver's rule for non-Nitro types). */
const XEN_ATTACHMENTS = 39;
/** The common Nitro figure, for catalogs that predate the recorded limit. */
const DEFAULT_ATTACHMENTS = 27;

/** The node's EBS volume limit under this node class. */
export function ebsVolumeLimit(info: InstanceTypeInfo, nodeClass?: EC2NodeClass): number {
  const xen = info.hypervisor === 'xen';
  const attachments = xen ? XEN_ATTACHMENTS : (info.maxEbsAttachments ?? DEFAULT_ATTACHMENTS);
  const shared = !xen && (info.ebsAttachmentLimitType ?? 'shared') === 'shared';
  let limit = attachments - systemVolumes(nodeClass);
  // A shared limit also holds the network interfaces attached when the driver starts: the primary one is already
  // out of the API's figure, and the VPC CNI attaches a second (its default WARM_ENI_TARGET=1) right away.
  if (shared) limit -= Math.min(info.maxEnis, 2) - 1;
  // The driver never reports less than one (Kubernetes would read zero as no limit).
  return Math.max(1, limit);
}

/** EBS volumes the node itself uses: each EBS block device mapping of the node class (the root one included), else
 * the AMI family's default (Bottlerocket maps a root and a data volume, the others one root volume). */
function systemVolumes(nodeClass?: EC2NodeClass): number {
  const mapped = nodeClass?.spec.blockDeviceMappings?.filter((m) => m.ebs).length ?? 0;
  if (mapped > 0) return mapped;
  return amiFamilyOf(nodeClass) === 'Bottlerocket' ? 2 : 1;
}
