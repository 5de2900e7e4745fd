// Static drift by hash, after Karpenter's hash controllers and the static half of its cloud provider's drift check:
// kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/suite_test.go, aws/karpenter-provider-aws
// pkg/controllers/nodeclass/hash/suite_test.go and pkg/cloudprovider/suite_test.go Context("Static Drift Detection").
// Karpless keeps no hash annotation on the NodePool or EC2NodeClass: the claim records its hashes and their version
// (CLAIM_HASH_VERSION), drift compares them with today's, and the planning sweep re-stamps claims of an older version
// (docs/disruption.md, Drift). Karpenter's "should update the hash-version annotation on the NodePool/NodeClass"
// cases have no counterpart: there is no such annotation to update.
import { describe, expect, it } from 'vitest';
import { CLAIM_HASH_VERSION, claimHashes, nodeClassHash, nodePoolTemplateHash } from '../../../shared/api/hash';
import { PREVIOUS_HASHES } from '../../../shared/api/hash-previous';
import type { BlockDeviceMapping, EC2NodeClass, NodePool } from '../../../shared/api/karpenter';
import type { NodeClaim } from '../../../shared/api/nodeclaim';
import { restampClaimHashes } from '../../../shared/controllers/claim-hashes';
import { driftReason } from '../../../shared/disruption/drift';
import { createTestbed, makePod, sweepDrift, type Testbed } from '../../../testkit/bed';
import { nodeClaim } from '../../../testkit/builders';
import { node, nodeClass, pool } from '../../../testkit/disruption';

const PREVIOUS_VERSION = CLAIM_HASH_VERSION - 1;
const previous = PREVIOUS_HASHES[PREVIOUS_VERSION];

/** The class with one spec change, as a new object (hashes are cached per object). */
function changedClass(change: (spec: EC2NodeClass['spec']) => void, from: EC2NodeClass = nodeClass): EC2NodeClass {
  const next = structuredClone(from);
  change(next.spec);
  return next;
}

function changedPool(change: (p: NodePool) => void, from: NodePool = pool()): NodePool {
  const next = structuredClone(from);
  change(next);
  return next;
}

describe('cloudprovider/suite_test.go Static Drift Detection', () => {
  const STATIC: [string, (s: EC2NodeClass['spec']) => void][] = [
    ['UserData', (s) => (s.userData = 'userdata-test-2')],
    ['Tags', (s) => (s.tags = { 'keyTag-test-3': 'valueTag-test-3' })],
    ['Context', (s) => (s.context = 'context-2')],
    ['DetailedMonitoring', (s) => (s.detailedMonitoring = true)],
    ['InstanceStorePolicy', (s) => (s.instanceStorePolicy = 'RAID0')],
    ['AssociatePublicIPAddress', (s) => (s.associatePublicIPAddress = true)],
    ['MetadataOptions HTTPEndpoint', (s) => (s.metadataOptions = { httpEndpoint: 'disabled' })],
    ['MetadataOptions HTTPProtocolIPv6', (s) => (s.metadataOptions = { httpProtocolIPv6: 'enabled' })],
    ['MetadataOptions HTTPPutResponseHopLimit', (s) => (s.metadataOptions = { httpPutResponseHopLimit: 10 })],
    ['MetadataOptions HTTPTokens', (s) => (s.metadataOptions = { httpTokens: 'optional' })],
    ['BlockDeviceMapping DeviceName', (s) => (s.blockDeviceMappings = [{ deviceName: 'map-device-test-3' }])],
    [
      'BlockDeviceMapping VolumeSize',
      (s) => (s.blockDeviceMappings = [{ deviceName: 'x', ebs: { volumeSize: '10G' } }]),
    ],
    ['Kubelet', (s) => (s.kubelet = { maxPods: 42 })],
  ];

  it.each(STATIC)(
    'should return drifted if a statically drifted EC2NodeClass.Spec field is updated: %s',
    (_, change) => {
      const p = pool();
      const n = node('a', { pool: p });
      expect(driftReason(n, p, nodeClass, undefined)).toBeUndefined();
      expect(driftReason(n, p, changedClass(change), undefined)).toMatch(/^EC2NodeClass default changed/);
    },
  );

  // Upstream merges each of these into the first block device mapping of its class, so the class here has one and
  // each entry changes one field of it.
  const withDevice = changedClass(
    (s) => (s.blockDeviceMappings = [{ deviceName: '/dev/xvda', ebs: { volumeSize: '20Gi' } }]),
  );
  const DEVICE: [string, (d: BlockDeviceMapping) => void][] = [
    ['BlockDeviceMapping RootVolume', (d) => (d.rootVolume = true)],
    ['BlockDeviceMapping DeleteOnTermination', (d) => (d.ebs = { ...d.ebs, deleteOnTermination: true })],
    ['BlockDeviceMapping Encrypted', (d) => (d.ebs = { ...d.ebs, encrypted: true })],
    ['BlockDeviceMapping IOPS', (d) => (d.ebs = { ...d.ebs, iops: 10 })],
    ['BlockDeviceMapping KMSKeyID', (d) => (d.ebs = { ...d.ebs, kmsKeyID: 'test' })],
    ['BlockDeviceMapping SnapshotID', (d) => (d.ebs = { ...d.ebs, snapshotID: 'test' })],
    ['BlockDeviceMapping Throughput', (d) => (d.ebs = { ...d.ebs, throughput: 10 })],
    ['BlockDeviceMapping VolumeType', (d) => (d.ebs = { ...d.ebs, volumeType: 'io1' })],
  ];

  it.each(DEVICE)(
    'should return drifted if a statically drifted EC2NodeClass.Spec field is updated: %s',
    (_, change) => {
      const p = pool();
      const n = node('a', { pool: p });
      Object.assign(n.claim, claimHashes(p, withDevice));
      expect(driftReason(n, p, withDevice, undefined)).toBeUndefined();
      const changed = changedClass((s) => change(s.blockDeviceMappings?.[0] as BlockDeviceMapping), withDevice);
      expect(driftReason(n, p, changed, undefined)).toMatch(/^EC2NodeClass default changed/);
    },
  );

  it.each<[string, (s: EC2NodeClass['spec']) => void]>([
    [
      'AMI Drift',
      (s) => {
        s.amiFamily = 'AL2023';
        s.amiSelectorTerms = [{ tags: { 'ami-key-1': 'ami-value-1' } }];
      },
    ],
    ['Subnet Drift', (s) => (s.subnetSelectorTerms = [{ tags: { 'sn-key-1': 'sn-value-1' } }])],
    ['SecurityGroup Drift', (s) => (s.securityGroupSelectorTerms = [{ tags: { 'sg-key': 'sg-value' } }])],
    ['CapacityReservation Drift', (s) => (s.capacityReservationSelectorTerms = [{ id: 'cr-0123456789abcdef0' }])],
  ])('should not return drifted if dynamic fields are updated: %s', (_, change) => {
    // Only the hash is consulted here (no cloudDrift): what the terms resolve to is the cloud's check
    // (test/karpenter/disruption/cloud-drift.test.ts).
    const p = pool();
    expect(driftReason(node('a', { pool: p }), p, changedClass(change), undefined)).toBeUndefined();
  });

  it('should not return drifted if karpenter.k8s.aws/ec2nodeclass-hash annotation is not present on the NodeClaim', () => {
    const p = pool();
    const n = node('a', { pool: p });
    delete n.claim.nodeClassHash;
    expect(
      driftReason(
        n,
        p,
        changedClass((s) => (s.tags = { 'Test Key': 'Test Value' })),
        undefined,
      ),
    ).toBeUndefined();
  });

  it("should not return drifted if the NodeClaim's karpenter.k8s.aws/ec2nodeclass-hash-version annotation does not match the EC2NodeClass's", () => {
    const p = pool();
    const n = node('a', { pool: p });
    n.claim.nodeClassHash = 'test-hash-222222';
    n.claim.hashVersion = PREVIOUS_VERSION;
    expect(driftReason(n, p, nodeClass, undefined)).toBeUndefined();
  });

  it('should not return drifted if karpenter.k8s.aws/ec2nodeclass-hash-version annotation is not present on the NodeClaim', () => {
    const p = pool();
    const n = node('a', { pool: p });
    n.claim.nodeClassHash = 'test-hash-222222';
    delete n.claim.hashVersion;
    expect(
      driftReason(
        n,
        p,
        changedClass((s) => (s.tags = { 'Test Key': 'Test Value' })),
        undefined,
      ),
    ).toBeUndefined();
  });
});

describe('nodeclass/hash/suite_test.go (NodeClass Hash Controller)', () => {
  it.each<[string, (s: EC2NodeClass['spec']) => void]>([
    ['UserData Drift', (s) => (s.userData = 'userdata-test-2')],
    ['Tags Drift', (s) => (s.tags = { 'keyTag-test-3': 'valueTag-test-3' })],
    ['BlockDeviceMappings Drift', (s) => (s.blockDeviceMappings = [{ deviceName: 'map-device-test-3' }])],
    ['DetailedMonitoring Drift', (s) => (s.detailedMonitoring = true)],
    ['MetadataOptions Drift', (s) => (s.metadataOptions = { httpEndpoint: 'disabled' })],
    ['Context Drift', (s) => (s.context = 'context-2')],
  ])('should update the drift hash when static field is updated: %s', (_, change) => {
    expect(nodeClassHash(changedClass(change))).not.toBe(nodeClassHash(nodeClass));
  });

  it('should not update the drift hash when dynamic field is updated', () => {
    const changed = changedClass((s) => {
      s.subnetSelectorTerms = [{ id: 'subnet-test1' }];
      s.securityGroupSelectorTerms = [{ id: 'sg-test1' }];
      s.amiSelectorTerms = [{ tags: { 'ami-test-key': 'ami-test-value' } }];
      s.amiFamily = 'AL2023';
    });
    expect(nodeClassHash(changed)).toBe(nodeClassHash(nodeClass));
  });
});

describe('nodepool/hash/suite_test.go (Static Drift Hash)', () => {
  /** Karpenter's BeforeEach NodePool: template annotations, labels, a taint, a startup taint, 5m lifetimes. */
  const base = () =>
    changedPool((p) => {
      p.spec.template.metadata = {
        annotations: { keyAnnotation: 'valueAnnotation', keyAnnotation2: 'valueAnnotation2' },
        labels: { keyLabel: 'valueLabel' },
      };
      p.spec.template.spec.taints = [{ key: 'key', effect: 'NoExecute' }];
      p.spec.template.spec.startupTaints = [{ key: 'key', effect: 'NoExecute' }];
      p.spec.template.spec.expireAfter = '5m';
      p.spec.template.spec.terminationGracePeriod = '5m';
    });

  it('should update the drift hash when NodePool static field is updated', () => {
    const changed = changedPool((p) => {
      p.spec.template.metadata = {
        labels: { keyLabeltest: 'valueLabeltest' },
        annotations: { keyAnnotation2: 'valueAnnotation2', keyAnnotation: 'valueAnnotation' },
      };
    }, base());
    expect(nodePoolTemplateHash(changed)).not.toBe(nodePoolTemplateHash(base()));
    const n = node('a', { pool: base() });
    expect(driftReason(n, changed, nodeClass, undefined)).toMatch(/^NodePool default template changed/);
  });

  it('should not update the drift hash when NodePool behavior field is updated', () => {
    const changed = changedPool((p) => {
      p.spec.limits = { cpu: '16' };
      p.spec.disruption.consolidationPolicy = 'WhenEmpty';
      p.spec.disruption.consolidateAfter = '30s';
      p.spec.template.spec.requirements = [
        { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['test'] },
        { key: 'topology.kubernetes.io/zone', operator: 'Gt', values: ['1'] },
        { key: 'topology.kubernetes.io/zone', operator: 'Lt', values: ['1'] },
      ];
      p.spec.weight = 80;
    }, base());
    expect(nodePoolTemplateHash(changed)).toBe(nodePoolTemplateHash(base()));
  });

  // What hashstructure's options (slices as sets, durations by value, zero values ignored) give Karpenter's hash.
  it('should not update the drift hash when taints are reordered or a duration is respelled', () => {
    const respelled = changedPool((p) => {
      p.spec.template.spec.taints = [
        { key: 'b', effect: 'NoSchedule' },
        { key: 'key', value: '', effect: 'NoExecute' },
      ];
      p.spec.template.spec.expireAfter = '300s';
      p.spec.template.spec.terminationGracePeriod = '0h5m';
    }, base());
    const reference = changedPool((p) => {
      p.spec.template.spec.taints = [
        { key: 'key', effect: 'NoExecute' },
        { key: 'b', effect: 'NoSchedule' },
      ];
    }, base());
    expect(nodePoolTemplateHash(respelled)).toBe(nodePoolTemplateHash(reference));
    const never = changedPool((p) => (p.spec.template.spec.expireAfter = 'Never'), base());
    expect(nodePoolTemplateHash(never)).not.toBe(nodePoolTemplateHash(base()));
  });
});

/** A bed whose two claims (Initialized, of its NodePool and EC2NodeClass) carry the given hashes and version. */
async function bedWithClaims(hashes: Partial<NodeClaim>): Promise<{ t: Testbed; claims: Map<string, NodeClaim> }> {
  const t = createTestbed();
  const claims = new Map<string, NodeClaim>();
  for (const name of ['default-one', 'default-two']) {
    const c = await t.store.create(nodeClaim({ name, cluster: 'test', state: 'Initialized', ...hashes }));
    claims.set(name, c);
  }
  return { t, claims };
}

const restamp = (t: Testbed, claims: Map<string, NodeClaim>, nodeClasses: EC2NodeClass[] = [t.nodeClass]) =>
  restampClaimHashes(t.deps, claims, [t.nodePool], nodeClasses);

describe('hash suite_test.go: hash versions on NodeClaims (nodepool and nodeclass controllers)', () => {
  it('should update ec2nodeclass-hash-versions on all NodeClaims when the ec2nodeclass-hash-version does not match with the controller hash version', async () => {
    const { t, claims } = await bedWithClaims({ nodeClassHash: '123456', hashVersion: 1 });
    await restamp(t, claims);
    for (const name of claims.keys()) {
      expect(await t.store.get(name)).toMatchObject({
        nodeClassHash: nodeClassHash(t.nodeClass),
        hashVersion: CLAIM_HASH_VERSION,
      });
    }
  });

  it('should update nodepool hash versions on all nodeclaims when the hash versions do not match the controller hash version', async () => {
    const { t, claims } = await bedWithClaims({ nodePoolHash: '123456' });
    await restamp(t, claims);
    for (const name of claims.keys()) {
      expect(await t.store.get(name)).toMatchObject({
        nodePoolHash: nodePoolTemplateHash(t.nodePool),
        hashVersion: CLAIM_HASH_VERSION,
      });
    }
  });

  it('should not update ec2nodeclass-hash on all NodeClaims when the ec2nodeclass-hash-version matches the controller hash version', async () => {
    const { t, claims } = await bedWithClaims({
      nodePoolHash: '1234564654',
      nodeClassHash: '1234564654',
      hashVersion: CLAIM_HASH_VERSION,
    });
    const out = await restamp(t, claims);
    for (const [name, before] of claims) {
      expect(await t.store.get(name)).toEqual(before);
      expect(out.get(name)).toBe(before);
    }
  });

  it("should not update ec2nodeclass-hash on the NodeClaim if it's drifted and the ec2nodeclass-hash-version does not match the controller hash version", async () => {
    if (!previous) throw new Error(`no previous hashes for version ${PREVIOUS_VERSION}`);
    const t0 = createTestbed();
    // Launched under the previous version with other userData: that version's hash of today's class differs.
    const launchedWith = changedClass((s) => (s.userData = 'echo before'), t0.nodeClass);
    const { t, claims } = await bedWithClaims({
      nodePoolHash: previous.nodePool(t0.nodePool),
      nodeClassHash: previous.nodeClass(launchedWith),
      hashVersion: PREVIOUS_VERSION,
    });
    await restamp(t, claims);
    for (const [name, before] of claims) {
      const after = await t.store.get(name);
      expect(after?.hashVersion).toBe(CLAIM_HASH_VERSION);
      expect(after?.nodeClassHash).toBe(before.nodeClassHash);
      // The NodePool had not drifted it: that hash is today's.
      expect(after?.nodePoolHash).toBe(nodePoolTemplateHash(t.nodePool));
    }
  });

  it("should not update nodepool hash on the nodeclaim if it's drifted", async () => {
    if (!previous) throw new Error(`no previous hashes for version ${PREVIOUS_VERSION}`);
    const t0 = createTestbed();
    const launchedFrom = changedPool((p) => (p.spec.template.metadata = { labels: { team: 'a' } }), t0.nodePool);
    const { t, claims } = await bedWithClaims({
      nodePoolHash: previous.nodePool(launchedFrom),
      nodeClassHash: previous.nodeClass(t0.nodeClass),
      hashVersion: PREVIOUS_VERSION,
    });
    await restamp(t, claims);
    for (const [name, before] of claims) {
      const after = await t.store.get(name);
      expect(after).toMatchObject({
        hashVersion: CLAIM_HASH_VERSION,
        nodePoolHash: before.nodePoolHash,
        nodeClassHash: nodeClassHash(t.nodeClass),
      });
    }
  });
});

/** One initialized node of the bed, its claim rewritten as the previous version wrote it for `pool` and `nodeClass`. */
async function previousVersionNode(
  pool: (t: Testbed) => NodePool,
  cls: (t: Testbed) => EC2NodeClass,
): Promise<{ t: Testbed; name: string }> {
  if (!previous) throw new Error(`no previous hashes for version ${PREVIOUS_VERSION}`);
  const t = createTestbed();
  t.cluster.addPod(makePod('web-0', { cpu: '500m', memory: '512Mi' }));
  await t.settle(60_000);
  const [claim] = await t.store.list({ states: ['Initialized'] });
  if (!claim) throw new Error('no initialized claim');
  expect(claim).toMatchObject(claimHashes(t.nodePool, t.nodeClass));
  await t.store.update(claim, {
    nodePoolHash: previous.nodePool(pool(t)),
    nodeClassHash: previous.nodeClass(cls(t)),
    hashVersion: PREVIOUS_VERSION,
  });
  return { t, name: claim.name };
}

describe('upgrading to a new hash version (drift-hash-versioning)', () => {
  it('re-stamps an unchanged previous-version claim instead of drifting it, whatever the new hash covers', async () => {
    const { t, name } = await previousVersionNode(
      (t) => t.nodePool,
      (t) => t.nodeClass,
    );
    expect(await sweepDrift(t, name, true)).toBeUndefined();
    expect(await t.store.get(name)).toMatchObject(claimHashes(t.nodePool, t.nodeClass));
  });

  it('keeps a claim drifted across the upgrade when its own version had drifted it', async () => {
    const { t, name } = await previousVersionNode(
      (t) => t.nodePool,
      (t) => changedClass((s) => (s.userData = 'echo before'), t.nodeClass),
    );
    expect(await sweepDrift(t, name, true)).toMatch(/^EC2NodeClass default changed/);
    // A second sweep sees the same: the stale hash stays until the node is replaced.
    expect(await sweepDrift(t, name, true)).toMatch(/^EC2NodeClass default changed/);
  });

  it('keeps a claim drifted that its own version drifted by a selector-term change the new hash ignores', async () => {
    // The previous version hashed the subnet terms, so a term rewrite after launch had drifted this claim. Karpenter
    // leaves a Drifted claim's hash alone on a version change; the node is replaced as it was going to be.
    const { t, name } = await previousVersionNode(
      (t) => t.nodePool,
      (t) => changedClass((s) => (s.subnetSelectorTerms = [{ tags: { old: 'terms' } }]), t.nodeClass),
    );
    expect(await sweepDrift(t, name, true)).toMatch(/^EC2NodeClass default changed/);
  });
});
