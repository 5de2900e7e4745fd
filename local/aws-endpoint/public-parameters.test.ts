import { describe, expect, it } from 'vitest';
import { amazonLinuxStandIn } from './public-parameters';

describe('amazonLinuxStandIn', () => {
  it('stands in for the EKS AL2023 standard latest parameter of either architecture, and nothing else', () => {
    const eks = (arch: string, variant = 'standard', name = 'recommended') =>
      `/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/${arch}/${variant}/${name}/image_id`;
    expect(amazonLinuxStandIn(eks('x86_64'))).toBe(
      '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64',
    );
    expect(amazonLinuxStandIn(eks('arm64'))).toBe(
      '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-arm64',
    );
    // No NVIDIA or Neuron image, no pinned version, no other family: those stay unresolved on such an endpoint.
    expect(amazonLinuxStandIn(eks('x86_64', 'nvidia'))).toBeUndefined();
    expect(
      amazonLinuxStandIn(eks('x86_64', 'standard', 'amazon-eks-node-al2023-x86_64-standard-1.31-v20240807')),
    ).toBeUndefined();
    expect(amazonLinuxStandIn('/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id')).toBeUndefined();
  });
});
