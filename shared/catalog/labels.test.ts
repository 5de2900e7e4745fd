import { describe, expect, it } from 'vitest';
import { WellKnownLabels } from '../api/labels';
import { labelsFor } from './labels';
import { loadCatalog } from './load';

const catalog = loadCatalog();
const labels = (name: string) => {
  const info = catalog.types.find((t) => t.name === name);
  if (!info) throw new Error(name);
  return labelsFor(info, catalog.region);
};

describe('labelsFor', () => {
  it("derives Karpenter's well-known labels for m5.large", () => {
    expect(labels('m5.large')).toEqual({
      'node.kubernetes.io/instance-type': 'm5.large',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'topology.kubernetes.io/region': 'us-east-1',
      'karpenter.k8s.aws/instance-category': 'm',
      'karpenter.k8s.aws/instance-family': 'm5',
      'karpenter.k8s.aws/instance-generation': '5',
      'karpenter.k8s.aws/instance-size': 'large',
      'karpenter.k8s.aws/instance-cpu': '2',
      'karpenter.k8s.aws/instance-cpu-manufacturer': 'intel',
      'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz': '3100',
      'karpenter.k8s.aws/instance-memory': '8192',
      'karpenter.k8s.aws/instance-network-bandwidth': '750',
      'karpenter.k8s.aws/instance-ebs-bandwidth': '4750',
      'karpenter.k8s.aws/instance-hypervisor': 'nitro',
      'karpenter.k8s.aws/instance-encryption-in-transit-supported': 'false',
      'karpenter.k8s.aws/instance-capability-flex': 'false',
    });
  });

  it('adds GPU labels for GPU types and accelerator labels for Inferentia', () => {
    expect(labels('p4d.24xlarge')).toMatchObject({
      'karpenter.k8s.aws/instance-gpu-name': 'a100',
      'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
      'karpenter.k8s.aws/instance-gpu-count': '8',
      'karpenter.k8s.aws/instance-gpu-memory': '40960',
      'karpenter.k8s.aws/instance-local-nvme': '8000',
    });
    expect(labels('inf2.xlarge')).toMatchObject({
      'karpenter.k8s.aws/instance-accelerator-name': 'inferentia2',
      'karpenter.k8s.aws/instance-accelerator-manufacturer': 'aws',
      'karpenter.k8s.aws/instance-accelerator-count': '1',
      'karpenter.k8s.aws/instance-category': 'inf',
      'karpenter.k8s.aws/instance-generation': '2',
    });
    expect(labels('m5.large')['karpenter.k8s.aws/instance-gpu-count']).toBeUndefined();
  });

  it('parses category and generation from multi-letter and suffixed families', () => {
    expect(labels('im4gn.large')).toMatchObject({
      'karpenter.k8s.aws/instance-category': 'im',
      'karpenter.k8s.aws/instance-generation': '4',
      'kubernetes.io/arch': 'arm64',
      'karpenter.k8s.aws/instance-cpu-manufacturer': 'aws',
    });
    expect(labels('m7i-flex.large')).toMatchObject({
      'karpenter.k8s.aws/instance-family': 'm7i-flex',
      'karpenter.k8s.aws/instance-category': 'm',
      'karpenter.k8s.aws/instance-generation': '7',
      'karpenter.k8s.aws/instance-capability-flex': 'true',
    });
    expect(labels('c7a.metal-48xl')['karpenter.k8s.aws/instance-size']).toBe('metal-48xl');
  });

  it('gives bare metal an empty hypervisor label, as Karpenter does, and says xen for Xen types', () => {
    expect(labels('m5.metal')['karpenter.k8s.aws/instance-hypervisor']).toBe('');
    expect(labels('i3.large')['karpenter.k8s.aws/instance-hypervisor']).toBe('xen');
  });

  it('only uses well-known label keys', () => {
    const unknown = new Set<string>();
    for (const t of catalog.types) {
      for (const key of Object.keys(labelsFor(t, catalog.region))) if (!WellKnownLabels.has(key)) unknown.add(key);
    }
    expect([...unknown]).toEqual([]);
  });
});
