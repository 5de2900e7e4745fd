// AMIDrift, for the AWS adapter and the simulator alike: a node drifts when the image it runs is not the one its
// instance type would boot now (Karpenter maps the class's images to the node's type and checks the node's image is
// among them). An image still resolved for another architecture or variant therefore drifts the node, and a new
// image for one architecture leaves the nodes of the other alone (docs/disruption.md, Drift).
import { amiFor, type ImageNeeds, type ResolvedAmi } from './images';

export interface AmiDriftInput {
  /** The image the instance runs, as EC2 reports it (or as the claim recorded it at launch). */
  imageId: string | undefined;
  /** The instance type's name and what decides its image; `info` undefined when the type is no longer known. */
  instanceType: string;
  info: ImageNeeds | undefined;
  /** Every image the EC2NodeClass resolves to now. */
  amis: readonly ResolvedAmi[];
}

export function amiDrift({ imageId, instanceType, info, amis }: AmiDriftInput): string | undefined {
  // Nothing to compare: an unknown image, or no images at all (broken discovery never replaces nodes).
  if (!imageId || amis.length === 0) return undefined;
  if (!info) {
    // Karpenter cannot map an unknown type and leaves the node; an image no architecture resolves to is drift anyway.
    if (amis.some((a) => a.id === imageId)) return undefined;
    return `AMIDrift: instance runs ${imageId}, EC2NodeClass resolves to ${ids(amis)}`;
  }
  const wanted = amiFor(info, amis);
  if (wanted?.id === imageId) return undefined;
  const target = wanted ? wanted.id : `no image (of ${ids(amis)})`;
  return `AMIDrift: instance runs ${imageId}, EC2NodeClass resolves to ${target} for ${instanceType} (${info.arch})`;
}

const ids = (amis: readonly ResolvedAmi[]) => [...new Set(amis.map((a) => a.id))].join(', ');
