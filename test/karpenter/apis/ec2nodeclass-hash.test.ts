// aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_hash_test.go, case by case, against Karpless's EC2NodeClass
// hash (shared/api/hash.ts; docs/disruption.md, Drift). Karpenter's static hashes are hashstructure numbers; Karpless
// pins its own at CLAIM_HASH_VERSION 4 the same way, so a change to what the hash covers fails here until the version
// is bumped (which re-stamps claims instead of drifting them). Karpenter fields Karpless does not model
// (connectionTracking, cpuOptions, networkInterfaces, placementGroupSelector) have no case.
import { describe, expect, it } from 'vitest';
import { withNodeClassDefaults } from '../../../shared/api/defaults';
import { CLAIM_HASH_VERSION, nodeClassHash } from '../../../shared/api/hash';
import type { EC2NodeClass } from '../../../shared/api/karpenter';
import { ec2NodeClass } from '../../../testkit/builders';

/** Karpenter's BeforeEach EC2NodeClass, as the API would hand it to the engine (defaults applied). */
function base(): EC2NodeClass {
  return withNodeClassDefaults(
    ec2NodeClass({
      role: 'role-1',
      tags: { 'keyTag-1': 'valueTag-1', 'keyTag-2': 'valueTag-2' },
      context: 'fake-context',
      detailedMonitoring: false,
      associatePublicIPAddress: false,
      metadataOptions: {
        httpEndpoint: 'disabled',
        httpProtocolIPv6: 'disabled',
        httpPutResponseHopLimit: 1,
        httpTokens: 'optional',
      },
      blockDeviceMappings: [
        {
          deviceName: 'map-device-1',
          rootVolume: false,
          ebs: {
            deleteOnTermination: false,
            encrypted: false,
            iops: 0,
            kmsKeyID: 'fakeKMSKeyID',
            snapshotID: 'fakeSnapshot',
            throughput: 0,
            volumeSize: '2G',
            volumeType: 'standard',
          },
        },
        { deviceName: 'map-device-2' },
      ],
      userData: 'userdata-test-1',
    }),
  );
}

type Change = (spec: EC2NodeClass['spec']) => void;

function hashAfter(change: Change): string {
  const nodeClass = base();
  change(nodeClass.spec);
  return nodeClassHash(nodeClass);
}

const ebs = (spec: EC2NodeClass['spec']) => {
  const device = spec.blockDeviceMappings?.[0];
  if (!device?.ebs) throw new Error('the base class has an EBS device first');
  return device.ebs;
};
const metadata = (spec: EC2NodeClass['spec']) => {
  if (!spec.metadataOptions) throw new Error('the base class has metadataOptions');
  return spec.metadataOptions;
};

/** Karpenter's static fields, each changed from the base, with Karpless's pinned hash after the change. */
const STATIC: [string, string, Change][] = [
  ['UserData', '19d8267cd7a0a4d6', (s) => (s.userData = 'userdata-test-2')],
  ['Tags', '8f2730d936d2b89b', (s) => (s.tags = { 'keyTag-test-3': 'valueTag-test-3' })],
  ['Context', '394dfdfecab40864', (s) => (s.context = 'context-2')],
  ['DetailedMonitoring', '6c72783841aa88ae', (s) => (s.detailedMonitoring = true)],
  ['InstanceStorePolicy', '58fc8327b195c181', (s) => (s.instanceStorePolicy = 'RAID0')],
  ['AssociatePublicIPAddress', '8114b29ae2bf3fa8', (s) => (s.associatePublicIPAddress = true)],
  ['MetadataOptions HTTPEndpoint', '890389f6e8d81480', (s) => (metadata(s).httpEndpoint = 'enabled')],
  ['MetadataOptions HTTPProtocolIPv6', '2cd044cc15e0d3b6', (s) => (metadata(s).httpProtocolIPv6 = 'enabled')],
  ['MetadataOptions HTTPPutResponseHopLimit', 'a44886c745e4d779', (s) => (metadata(s).httpPutResponseHopLimit = 10)],
  ['MetadataOptions HTTPTokens', '18f0dbde08573770', (s) => (metadata(s).httpTokens = 'required')],
  [
    'BlockDeviceMapping DeviceName',
    '5289d29afbb26594',
    (s) => ((s.blockDeviceMappings?.[0] ?? { deviceName: '' }).deviceName = 'map-device-test-3'),
  ],
  [
    'BlockDeviceMapping RootVolume',
    '026db6f3c3b3ed1d',
    (s) => ((s.blockDeviceMappings?.[0] ?? { deviceName: '' }).rootVolume = true),
  ],
  ['BlockDeviceMapping DeleteOnTermination', '62e16c5271c90830', (s) => (ebs(s).deleteOnTermination = true)],
  ['BlockDeviceMapping Encrypted', '01760eeca5bb6f1a', (s) => (ebs(s).encrypted = true)],
  ['BlockDeviceMapping IOPS', '0badc5884b58c242', (s) => (ebs(s).iops = 10)],
  ['BlockDeviceMapping KMSKeyID', 'ed95981b1c7cbfe1', (s) => (ebs(s).kmsKeyID = 'test')],
  ['BlockDeviceMapping SnapshotID', '1f3118b8a84e0cb2', (s) => (ebs(s).snapshotID = 'test')],
  ['BlockDeviceMapping Throughput', '5afb94942c5d616e', (s) => (ebs(s).throughput = 10)],
  ['BlockDeviceMapping VolumeType', '5f4dc2e742ff0eb9', (s) => (ebs(s).volumeType = 'io1')],
];

/** Karpenter's behaviour (dynamic) fields: the selector terms, drifted by what they resolve to, not by hash. */
const DYNAMIC: [string, Change][] = [
  ['Modified AMISelector', (s) => (s.amiSelectorTerms = [{ tags: { '': 'ami-test-value' } }])],
  ['Modified SubnetSelector', (s) => (s.subnetSelectorTerms = [{ tags: { 'subnet-test-key': 'subnet-test-value' } }])],
  [
    'Modified SecurityGroupSelector',
    (s) => (s.securityGroupSelectorTerms = [{ tags: { 'security-group-test-key': 'security-group-test-value' } }]),
  ],
];

const STATIC_HASH = '49a984531d0d9b21';

describe('Hash', () => {
  it('pins the hashes of CLAIM_HASH_VERSION 4 (a change to them needs a version bump)', () => {
    expect(CLAIM_HASH_VERSION).toBe(4);
  });

  describe('should match static hash on field value change', () => {
    it('Base EC2NodeClass', () => expect(nodeClassHash(base())).toBe(STATIC_HASH));
    it.each(STATIC)('%s', (_, hash, change) => expect(hashAfter(change)).toBe(hash));
    it.each(DYNAMIC)('%s', (_, change) => expect(hashAfter(change)).toBe(STATIC_HASH));
  });

  it('should match static hash when updating blockDeviceMapping volumeSize', () => {
    expect(hashAfter((s) => (ebs(s).volumeSize = '10G'))).toBe('40d952be6a07e41c');
  });

  it('should match static hash for instanceProfile', () => {
    expect(
      hashAfter((s) => {
        delete s.role;
        s.instanceProfile = 'test-instance-profile';
      }),
    ).toBe('19992f4da94b9fbf');
  });

  it('should match static hash when reordering tags', () => {
    expect(hashAfter((s) => (s.tags = { 'keyTag-2': 'valueTag-2', 'keyTag-1': 'valueTag-1' }))).toBe(STATIC_HASH);
  });

  it('should match static hash when reordering blockDeviceMappings', () => {
    expect(hashAfter((s) => s.blockDeviceMappings?.reverse())).toBe(STATIC_HASH);
  });

  it.each(STATIC)('should change hash when static fields are updated: %s', (_, __, change) => {
    expect(hashAfter(change)).not.toBe(nodeClassHash(base()));
  });

  it('should change hash blockDeviceMapping volumeSize is updated', () => {
    expect(hashAfter((s) => (ebs(s).volumeSize = '10G'))).not.toBe(nodeClassHash(base()));
  });

  it('should change hash when instanceProfile is updated', () => {
    const profile =
      (name: string): Change =>
      (s) => {
        delete s.role;
        s.instanceProfile = name;
      };
    expect(hashAfter(profile('other-instance-profile'))).not.toBe(hashAfter(profile('test-instance-profile')));
  });

  it('should not change hash when tags are re-ordered', () => {
    expect(hashAfter((s) => (s.tags = { 'keyTag-2': 'valueTag-2', 'keyTag-1': 'valueTag-1' }))).toBe(
      nodeClassHash(base()),
    );
  });

  it('should not change hash when blockDeviceMappings are re-ordered', () => {
    expect(hashAfter((s) => s.blockDeviceMappings?.reverse())).toBe(nodeClassHash(base()));
  });

  it('should not change hash when behavior/dynamic fields are updated', () => {
    const updated = hashAfter((s) => {
      s.subnetSelectorTerms = [{ tags: { 'subnet-test-key': 'subnet-test-value' } }];
      s.securityGroupSelectorTerms = [{ tags: { 'sg-test-key': 'sg-test-value' } }];
      s.amiSelectorTerms = [{ tags: { 'ami-test-key': 'ami-test-value' } }];
      s.capacityReservationSelectorTerms = [{ tags: { 'cr-test-key': 'cr-test-value' } }];
    });
    expect(updated).toBe(nodeClassHash(base()));
  });

  it('should expect two EC2NodeClasses with the same spec to have the same hash', () => {
    const one = base();
    const other: EC2NodeClass = { ...base(), metadata: { name: 'other', uid: 'another-uid' }, spec: one.spec };
    expect(nodeClassHash(other)).toBe(nodeClassHash(one));
  });

  it('should change hash when kubelet configuration is updated', () => {
    expect(hashAfter((s) => (s.kubelet = { maxPods: 220 }))).not.toBe(hashAfter((s) => (s.kubelet = { maxPods: 110 })));
  });

  it('should not collide for kubelet configs that are byte-permutations of one another', () => {
    expect(hashAfter((s) => (s.kubelet = { maxPods: 21 }))).not.toBe(hashAfter((s) => (s.kubelet = { maxPods: 12 })));
  });
});

// The rest of what ec2nodeclass.go's Hash() says, beyond its tests: the AMI family is hashed as resolved (the alias's
// family when amiFamily is unset), and the API server's defaults are part of the hashed object.
describe('Hash (resolved AMI family and API defaults)', () => {
  it('should not change hash when amiFamily is set to the family of its alias', () => {
    expect(hashAfter((s) => delete s.amiFamily)).toBe(hashAfter((s) => (s.amiFamily = 'AL2023')));
  });

  it('should change hash when the alias moves to another family', () => {
    const bottlerocket = hashAfter((s) => {
      delete s.amiFamily;
      s.amiSelectorTerms = [{ alias: 'bottlerocket@latest' }];
    });
    expect(bottlerocket).not.toBe(hashAfter((s) => delete s.amiFamily));
  });

  it('should change hash when amiFamily turns Custom beside the same alias', () => {
    expect(hashAfter((s) => (s.amiFamily = 'Custom'))).not.toBe(nodeClassHash(base()));
  });

  it('should not change hash when metadataOptions spells out the defaults the API server writes', () => {
    const omitted = hashAfter((s) => delete s.metadataOptions);
    const partial = hashAfter((s) => (s.metadataOptions = { httpTokens: 'required' }));
    const explicit = hashAfter(
      (s) =>
        (s.metadataOptions = {
          httpEndpoint: 'enabled',
          httpProtocolIPv6: 'disabled',
          httpPutResponseHopLimit: 1,
          httpTokens: 'required',
        }),
    );
    expect(partial).toBe(omitted);
    expect(explicit).toBe(omitted);
  });

  it('should not change hash when a volume size is written in another unit of its family', () => {
    expect(hashAfter((s) => (ebs(s).volumeSize = '2000M'))).toBe(nodeClassHash(base()));
    expect(hashAfter((s) => (ebs(s).volumeSize = '1024Gi'))).toBe(hashAfter((s) => (ebs(s).volumeSize = '1Ti')));
    // Karpenter keeps the suffix family in the canonical form: 2Gi is another size, not another spelling.
    expect(hashAfter((s) => (ebs(s).volumeSize = '2Gi'))).not.toBe(nodeClassHash(base()));
  });

  it('should not change hash when ipPrefixCount, which Karpenter ignores, is set', () => {
    const withPrefixes = hashAfter((s) => Object.assign(s, { ipPrefixCount: 4 }));
    expect(withPrefixes).toBe(nodeClassHash(base()));
  });
});
