import { describe, expect, it } from 'vitest';
import { pod as buildPod } from '../../testkit/builders';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../api/kube';
import { VolumeIndex } from './volumes';

const pod = (claimName: string): Pod =>
  buildPod({
    name: 'db-0',
    namespace: 'prod',
    containers: [],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
  });
const pvc = (name: string, spec: PersistentVolumeClaim['spec']): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'prod' },
  spec,
});
const zonal: StorageClass = {
  kind: 'StorageClass',
  metadata: { name: 'gp3', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: 'ebs.csi.aws.com',
  volumeBindingMode: 'WaitForFirstConsumer',
  allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['us-east-1b'] }] }],
};
const pv: PersistentVolume = {
  kind: 'PersistentVolume',
  metadata: { name: 'pv-1' },
  spec: {
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1c'] }] },
        ],
      },
    },
  },
};

describe('VolumeIndex', () => {
  it('follows a bound PV node affinity', () => {
    const idx = new VolumeIndex([pvc('data', { volumeName: 'pv-1' })], [pv], [zonal]);
    const r = idx.requirementsFor(pod('data')).requirements.get('topology.kubernetes.io/zone');
    expect([...(r?.values ?? [])]).toEqual(['us-east-1c']);
  });

  it('uses allowedTopologies of a WaitForFirstConsumer class, including the default class', () => {
    const idx = new VolumeIndex([pvc('data', {})], [], [zonal]);
    expect([
      ...(idx.requirementsFor(pod('data')).requirements.get('topology.kubernetes.io/zone')?.values ?? []),
    ]).toEqual(['us-east-1b']);
  });

  it('ignores Immediate classes, and reports a claim that does not exist as missing', () => {
    const immediate = { ...zonal, metadata: { name: 'imm' }, volumeBindingMode: 'Immediate' as const };
    const idx = new VolumeIndex([pvc('data', { storageClassName: 'imm' })], [], [immediate]);
    const ok = idx.requirementsFor(pod('data'));
    expect(ok.requirements.size).toBe(0);
    expect(ok.missing).toBeUndefined();
    const missing = new VolumeIndex().requirementsFor(pod('nope'));
    expect(missing.missing).toBe('PersistentVolumeClaim prod/nope not found');
    expect(missing.warnings).toEqual([]);
  });
});
