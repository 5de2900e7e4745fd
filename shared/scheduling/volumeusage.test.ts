import { describe, expect, it } from 'vitest';
import { pod as buildPod } from '../../testkit/builders';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../api/kube';
import { podVolumes } from './volumedrivers';
import { VolumeIndex } from './volumes';
import { VolumeUsage } from './volumeusage';

const pod = (name: string, claims: string[]): Pod =>
  buildPod({
    name,
    namespace: 'prod',
    containers: [],
    volumes: claims.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })),
  });
const pvc = (name: string, spec: PersistentVolumeClaim['spec']): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'prod' },
  spec,
});
const sc = (name: string, provisioner: string): StorageClass => ({
  kind: 'StorageClass',
  metadata: { name },
  provisioner,
});
const pv = (name: string, spec: PersistentVolume['spec']): PersistentVolume => ({
  kind: 'PersistentVolume',
  metadata: { name },
  spec,
});

describe('podVolumes', () => {
  const index = new VolumeIndex(
    [
      pvc('csi', { volumeName: 'pv-csi' }),
      pvc('in-tree-pv', { volumeName: 'pv-ebs' }),
      pvc('nfs', { volumeName: 'pv-nfs', storageClassName: '' }),
      pvc('dynamic', { storageClassName: 'legacy' }),
      pvc('static-only', { storageClassName: '' }),
    ],
    [
      pv('pv-csi', { csi: { driver: 'efs.csi.aws.com' } }),
      pv('pv-ebs', { awsElasticBlockStore: { volumeID: 'vol-1' } }),
      pv('pv-nfs', {}),
    ],
    [sc('legacy', 'kubernetes.io/aws-ebs')],
  );

  it('resolves each claim to the driver that attaches it, skipping what no CSI driver attaches', () => {
    const vols = podVolumes(pod('p', ['csi', 'in-tree-pv', 'nfs', 'dynamic', 'static-only', 'absent']), index);
    expect(Object.fromEntries(vols)).toEqual({
      'efs.csi.aws.com': ['prod/csi'],
      'ebs.csi.aws.com': ['prod/in-tree-pv', 'prod/dynamic'],
    });
  });
});

describe('VolumeUsage', () => {
  it('counts shared claims once and refuses a pod past a driver limit', () => {
    const usage = new VolumeUsage({ 'ebs.csi.aws.com': 2 });
    usage.add(new Map([['ebs.csi.aws.com', ['prod/a']]]));
    expect(usage.exceeds(new Map([['ebs.csi.aws.com', ['prod/a', 'prod/b']]]))).toBeUndefined();
    expect(usage.exceeds(new Map([['ebs.csi.aws.com', ['prod/b', 'prod/c']]]))).toMatch(/ebs.csi.aws.com \(3 > 2\)/);
    // A driver without a limit takes any number.
    expect(usage.exceeds(new Map([['efs.csi.aws.com', ['prod/x', 'prod/y', 'prod/z']]]))).toBeUndefined();
  });
});
