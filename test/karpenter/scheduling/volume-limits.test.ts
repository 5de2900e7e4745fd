// Karpenter's pkg/controllers/provisioning/scheduling/suite_test.go "VolumeUsage" (and its "CSIMigration" context),
// translated to what a cluster dump shows: an initialized Node with its CSINode, the claims, volumes and classes, run
// through `simulate`'s own path (testkit/dump.ts). Karpenter launches a node and then writes the CSINode; a dump
// already holds both, so each case starts from the node Karpenter's first provisioning made. Each test names the It
// it mirrors. docs/simulate-dump.md, Volume attach limits.
import { describe, expect, it } from 'vitest';
import {
  dumpCSINode,
  dumpNode,
  dumpNodeClaim,
  dumpNodeClass,
  dumpNodePool,
  dumpPod,
  dumpPv,
  dumpPvc,
  dumpStorageClass,
  dumpYaml,
  newClaimPods,
  placedOn,
  simulateDump,
  withVolumes,
} from '../../../testkit/dump';

const S = 'suite_test.go VolumeUsage';
const CSI = 'fake.csi.provider';
const base = [dumpNodePool(), dumpNodeClass];
/** The node the first provisioning launched, big enough that only volumes limit it. */
const node = dumpNode({ name: 'n1', type: 'm5.4xlarge', initialized: true });
const initial = dumpPod({ name: 'initial', nodeName: 'n1', cpu: '10m' });
const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe(S, () => {
  it('should launch multiple nodes if required due to volume limits', async () => {
    const pods = names(6, 'p').map((name, i) =>
      dumpPod({ name, cpu: '10m', spec: withVolumes([`my-claim-a-${i}`, `my-claim-b-${i}`]) }),
    );
    const claims = names(6, 'x').flatMap((_, i) => [
      dumpPvc({ name: `my-claim-a-${i}`, storageClassName: 'my-storage-class' }),
      dumpPvc({ name: `my-claim-b-${i}`, storageClassName: 'my-storage-class' }),
    ]);
    const r = await simulateDump(
      dumpYaml([
        ...base,
        node,
        initial,
        dumpCSINode('n1', { [CSI]: 10 }),
        dumpStorageClass({ name: 'my-storage-class', provisioner: CSI }),
        ...claims,
        ...pods,
      ]),
    );
    // The node can attach 10 volumes: five pods of two claims each; the sixth needs a new node.
    expect(placedOn(r, 'n1')).toHaveLength(5);
    expect(newClaimPods(r)).toHaveLength(1);
  });

  it('should launch a single node if all pods use the same PVC', async () => {
    const pods = names(100, 'p').map((name) => dumpPod({ name, cpu: '10m', spec: withVolumes(['my-claim']) }));
    const r = await simulateDump(
      dumpYaml([
        ...base,
        node,
        initial,
        dumpCSINode('n1', { [CSI]: 10 }),
        dumpStorageClass({ name: 'my-storage-class', provisioner: CSI }),
        dumpPv({ name: 'my-volume', csi: CSI, storageClassName: 'my-storage-class' }),
        dumpPvc({ name: 'my-claim', storageClassName: 'my-storage-class', volumeName: 'my-volume' }),
        ...pods,
      ]),
    );
    // 100 pods of the same claim attach one volume.
    expect(placedOn(r, 'n1')).toHaveLength(100);
    expect(r.nodeClaims).toHaveLength(0);
  });

  it('should not fail for NFS volumes', async () => {
    const pods = names(5, 'p').map((name) =>
      dumpPod({ name, cpu: '10m', spec: withVolumes(['my-claim', 'my-claim']) }),
    );
    const r = await simulateDump(
      dumpYaml([
        ...base,
        node,
        initial,
        dumpCSINode('n1', { [CSI]: 1 }),
        dumpPv({ name: 'my-volume', nfs: true, storageClassName: 'nfs' }),
        dumpPvc({ name: 'my-claim', storageClassName: '', volumeName: 'my-volume' }),
        ...pods,
      ]),
    );
    expect(placedOn(r, 'n1')).toHaveLength(5);
    expect(r.nodeClaims).toHaveLength(0);
  });

  it('should launch nodes for pods with ephemeral volume using the specified storage class name', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        node,
        dumpStorageClass({ name: 'my-storage-class', provisioner: CSI }),
        // Another default class that must not be used, with its own (roomier) limit.
        dumpStorageClass({ name: 'default-storage-class', provisioner: 'other-provider', isDefault: true }),
        dumpPod({
          name: 'initial',
          nodeName: 'n1',
          cpu: '10m',
          spec: withVolumes([], [{ name: 'tmp-ephemeral', storageClassName: 'my-storage-class' }]),
        }),
        dumpPvc({ name: 'initial-tmp-ephemeral', storageClassName: 'my-storage-class' }),
        dumpCSINode('n1', { [CSI]: 1, 'other-provider': 10 }),
        dumpPod({
          name: 'pod',
          cpu: '10m',
          spec: withVolumes([], [{ name: 'tmp-ephemeral', storageClassName: 'my-storage-class' }]),
        }),
        dumpPvc({ name: 'pod-tmp-ephemeral', storageClassName: 'my-storage-class' }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual([]);
    expect(newClaimPods(r)).toEqual(['pod']);
  });

  it('should launch nodes for pods with ephemeral volume using a default storage class', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        node,
        dumpStorageClass({ name: 'default-storage-class', provisioner: CSI, isDefault: true }),
        dumpPod({ name: 'initial', nodeName: 'n1', cpu: '10m', spec: withVolumes([], [{ name: 'tmp-ephemeral' }]) }),
        dumpPvc({ name: 'initial-tmp-ephemeral', storageClassName: null }),
        dumpCSINode('n1', { [CSI]: 1 }),
        dumpPod({ name: 'pod', cpu: '10m', spec: withVolumes([], [{ name: 'tmp-ephemeral' }]) }),
        dumpPvc({ name: 'pod-tmp-ephemeral', storageClassName: null }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual([]);
    expect(newClaimPods(r)).toEqual(['pod']);
  });

  it('should launch nodes for pods with ephemeral volume using the newest storage class', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        node,
        dumpStorageClass({
          name: 'default-storage-class',
          provisioner: 'other-provider',
          isDefault: true,
          createdAt: '2026-11-01T10:00:00Z',
        }),
        dumpStorageClass({
          name: 'newer-default-storage-class',
          provisioner: CSI,
          isDefault: true,
          createdAt: '2026-11-01T10:00:02Z',
        }),
        dumpPod({ name: 'initial', nodeName: 'n1', cpu: '10m', spec: withVolumes([], [{ name: 'tmp-ephemeral' }]) }),
        dumpPvc({ name: 'initial-tmp-ephemeral', storageClassName: null }),
        dumpCSINode('n1', { [CSI]: 1, 'other-provider': 10 }),
        dumpPod({ name: 'pod', cpu: '10m', spec: withVolumes([], [{ name: 'tmp-ephemeral' }]) }),
        dumpPvc({ name: 'pod-tmp-ephemeral', storageClassName: null }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual([]);
    expect(newClaimPods(r)).toEqual(['pod']);
  });

  describe('CSIMigration', () => {
    const inTree = dumpStorageClass({
      name: 'in-tree-storage-class',
      provisioner: 'kubernetes.io/aws-ebs',
      isDefault: true,
    });

    it('should launch nodes for pods with non-dynamic PVC using a migrated PVC/PV', async () => {
      const r = await simulateDump(
        dumpYaml([
          ...base,
          node,
          inTree,
          dumpPvc({ name: 'claim-1', storageClassName: 'in-tree-storage-class' }),
          dumpPod({ name: 'initial', nodeName: 'n1', cpu: '10m', spec: withVolumes(['claim-1']) }),
          dumpCSINode('n1', { 'ebs.csi.aws.com': 1 }),
          dumpPv({ name: 'my-volume', ebs: true }),
          dumpPvc({ name: 'claim-2', storageClassName: 'in-tree-storage-class' }),
          dumpPod({ name: 'pod', cpu: '10m', spec: withVolumes(['claim-2']) }),
        ]),
      );
      expect(placedOn(r, 'n1')).toEqual([]);
      expect(newClaimPods(r)).toEqual(['pod']);
    });

    it('should launch nodes for pods with ephemeral volume using a migrated PVC/PV', async () => {
      const eph = [{ name: 'tmp-ephemeral', storageClassName: 'in-tree-storage-class' }];
      const r = await simulateDump(
        dumpYaml([
          ...base,
          node,
          inTree,
          dumpPod({ name: 'initial', nodeName: 'n1', cpu: '10m', spec: withVolumes([], eph) }),
          dumpPvc({ name: 'initial-tmp-ephemeral', storageClassName: null }),
          dumpCSINode('n1', { 'ebs.csi.aws.com': 1 }),
          dumpPod({ name: 'pod', cpu: '10m', spec: withVolumes([], eph) }),
        ]),
      );
      expect(placedOn(r, 'n1')).toEqual([]);
      expect(newClaimPods(r)).toEqual(['pod']);
    });
  });

  // Karpless: a volume bound to an in-tree EBS PersistentVolume counts against ebs.csi.aws.com (Karpenter's
  // driverFromVolume), whatever its class says.
  it('counts a claim bound to an in-tree EBS volume against ebs.csi.aws.com', async () => {
    const r = await simulateDump(
      dumpYaml([
        ...base,
        node,
        dumpPv({ name: 'vol-a', ebs: true }),
        dumpPv({ name: 'vol-b', ebs: true }),
        dumpPvc({ name: 'a', storageClassName: '', volumeName: 'vol-a' }),
        dumpPvc({ name: 'b', storageClassName: '', volumeName: 'vol-b' }),
        dumpPod({ name: 'initial', nodeName: 'n1', cpu: '10m', spec: withVolumes(['a']) }),
        dumpCSINode('n1', { 'ebs.csi.aws.com': 1 }),
        dumpPod({ name: 'pod', cpu: '10m', spec: withVolumes(['b']) }),
      ]),
    );
    expect(placedOn(r, 'n1')).toEqual([]);
    expect(newClaimPods(r)).toEqual(['pod']);
  });
});

// Karpless departs here: Karpenter's AWS provider gives new NodeClaims no EBS attachment limit (its instance types
// carry none), so a claim may take more EBS volumes than its node will attach, and the pods stay stuck in
// ContainerCreating. Karpless holds a new claim to its instance type's limit (docs/simulate-dump.md, Volume attach
// limits); these assert the departure.
describe('Karpless: new NodeClaims use the instance type EBS attachment limit', () => {
  const gp3 = dumpStorageClass({ name: 'gp3', provisioner: 'ebs.csi.aws.com', isDefault: true });
  const ebsPods = (n: number, volumesEach = 1) =>
    names(n, 'db').flatMap((name) => {
      const claims = Array.from({ length: volumesEach }, (_, v) => `${name}-data-${v}`);
      return [
        ...claims.map((c) => dumpPvc({ name: c, storageClassName: 'gp3' })),
        dumpPod({ name, cpu: '10m', spec: withVolumes(claims) }),
      ];
    });

  it('spreads EBS-backed pods over claims of at most the type limit (m5: 25 volumes)', async () => {
    const r = await simulateDump(dumpYaml([...base, gp3, ...ebsPods(30)]));
    expect(newClaimPods(r)).toHaveLength(30);
    for (const c of r.nodeClaims) expect(c.plan.pods.length).toBeLessThanOrEqual(25);
  });

  it('leaves a pod with more EBS volumes than any allowed type attaches unschedulable, saying why', async () => {
    const r = await simulateDump(dumpYaml([...base, gp3, ...ebsPods(1, 26)]));
    expect(r.nodeClaims).toHaveLength(0);
    expect(r.unschedulable[0]?.reason).toMatch(/no instance type can attach 26 ebs\.csi\.aws\.com volumes/);
  });

  it('holds an in-flight NodeClaim without a CSINode to its type limit', async () => {
    const r = await simulateDump(dumpYaml([...base, gp3, dumpNodeClaim({ name: 'default-a1' }), ...ebsPods(30)]));
    expect(placedOn(r, 'default-a1')).toHaveLength(25);
    expect(newClaimPods(r)).toHaveLength(5);
  });
});
