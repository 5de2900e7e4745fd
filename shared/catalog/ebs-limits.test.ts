import { describe, expect, it } from 'vitest';
import { ec2NodeClass } from '../../testkit/builders';
import { ebsVolumeLimit } from './ebs-limits';
import { loadCatalog } from './load';
import type { InstanceTypeInfo } from './types';

const catalog = loadCatalog();
const type = (name: string): InstanceTypeInfo => {
  const t = catalog.types.find((x) => x.name === name);
  if (!t) throw new Error(`${name} not in the embedded catalog`);
  return t;
};

describe('ebsVolumeLimit', () => {
  it('takes the root volume and the warm ENI out of a shared Nitro limit', () => {
    // m5.large: 27 shared attachments, less the root volume and the VPC CNI's second ENI.
    expect(type('m5.large')).toMatchObject({ maxEbsAttachments: 27, ebsAttachmentLimitType: 'shared' });
    expect(ebsVolumeLimit(type('m5.large'))).toBe(25);
    // Instance store volumes are already out of the API's figure (c5d.large: 26).
    expect(ebsVolumeLimit(type('c5d.large'))).toBe(24);
  });

  it('takes only the root volume out of a dedicated limit', () => {
    expect(type('m7i.large')).toMatchObject({ maxEbsAttachments: 32, ebsAttachmentLimitType: 'dedicated' });
    expect(ebsVolumeLimit(type('m7i.large'))).toBe(31);
  });

  it('gives Xen types 39 dedicated attachments', () => {
    expect(type('i3.large').hypervisor).toBe('xen');
    expect(ebsVolumeLimit(type('i3.large'))).toBe(38);
  });

  it("counts the node class's EBS volumes: Bottlerocket's two, or every EBS block device mapping", () => {
    const bottlerocket = ec2NodeClass({ amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] }, 'br');
    expect(ebsVolumeLimit(type('m5.large'), bottlerocket)).toBe(24);
    const mapped = ec2NodeClass(
      {
        blockDeviceMappings: [
          { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '20Gi' } },
          { deviceName: '/dev/xvdb', ebs: { volumeSize: '100Gi' } },
          { deviceName: '/dev/xvdc', ebs: { volumeSize: '100Gi' } },
        ],
      },
      'mapped',
    );
    expect(ebsVolumeLimit(type('m7i.large'), mapped)).toBe(29);
  });

  it('assumes the common Nitro figure for a catalog that predates the recorded limit', () => {
    const { maxEbsAttachments: _m, ebsAttachmentLimitType: _t, ...old } = type('m5.large');
    expect(ebsVolumeLimit(old)).toBe(25);
  });
});
