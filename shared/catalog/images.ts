// Which of an EC2NodeClass's resolved images an instance type boots: one of its architecture, and for accelerated
// types the variant with their drivers. Launching (shared/aws) and AMI drift (shared/catalog/drift-ami.ts), on AWS
// and in the simulator, all ask this one question, so a node drifts exactly when its type would now boot another
// image (docs/disruption.md, Drift).
import type { Arch, InstanceTypeInfo } from './types';

/** EKS-optimized image flavours: GPU instances need the driver-carrying ones. */
export type Variant = 'standard' | 'nvidia' | 'neuron';

export interface ResolvedAmi {
  id: string;
  name?: string;
  arch: Arch;
  /** Known for alias images; undefined for images chosen by id/name/tags (they serve every type of their arch). */
  variant?: Variant;
  creationDate?: string;
}

/** What of an instance type decides its image. */
export type ImageNeeds = Pick<InstanceTypeInfo, 'arch' | 'gpu' | 'accelerator'>;

/** The variant an instance type needs: NVIDIA GPUs the nvidia image, Inferentia/Trainium the neuron image. */
export function variantFor(info: Pick<InstanceTypeInfo, 'gpu' | 'accelerator'>): Variant {
  if (info.gpu?.manufacturer === 'nvidia') return 'nvidia';
  if (info.accelerator?.manufacturer === 'aws') return 'neuron';
  return 'standard';
}

/**
 * The image an instance type boots: an image of its architecture and variant; a generic image (chosen by id, name
 * or tags) serves any type of its architecture. Undefined when the node class has none (the type is not launched).
 */
export function amiFor(info: ImageNeeds, amis: readonly ResolvedAmi[]): ResolvedAmi | undefined {
  const want = variantFor(info);
  const sameArch = amis.filter((a) => a.arch === info.arch);
  return sameArch.find((a) => a.variant === want) ?? newest(sameArch.filter((a) => a.variant === undefined));
}

const newest = (amis: ResolvedAmi[]) =>
  amis.reduce<ResolvedAmi | undefined>(
    (b, a) => (!b || (a.creationDate ?? '') > (b.creationDate ?? '') ? a : b),
    undefined,
  );
