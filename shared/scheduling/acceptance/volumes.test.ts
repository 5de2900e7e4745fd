import { describe, expect, it } from 'vitest';
import { nodePool, pod } from '../../../testkit/builders';
import { run, zoneOf } from '../../../testkit/solve';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../api/kube';

const ZONE = 'topology.kubernetes.io/zone';
const withClaim = (name: string, claimName: string) =>
  pod({ name, cpu: '1', volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] });
const pvc = (name: string, spec: PersistentVolumeClaim['spec']): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default' },
  spec,
});
const wffc = (name: string, zones?: string[]): StorageClass => ({
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'ebs.csi.aws.com',
  volumeBindingMode: 'WaitForFirstConsumer',
  ...(zones ? { allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE, values: zones }] }] } : {}),
});

describe('acceptance: volume topology', () => {
  it('launches in the zone of a bound volume', () => {
    const pv: PersistentVolume = {
      kind: 'PersistentVolume',
      metadata: { name: 'pv-data' },
      spec: {
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['us-east-1b'] }] }],
          },
        },
      },
    };
    const r = run({
      pods: [withClaim('db-0', 'data-db-0')],
      pvcs: [pvc('data-db-0', { volumeName: 'pv-data' })],
      pvs: [pv],
    });
    expect(zoneOf(r.nodeClaims[0])).toBe('us-east-1b');
  });

  it('launches within a WaitForFirstConsumer class allowed topologies', () => {
    const r = run({
      pods: [withClaim('db-0', 'c0')],
      pvcs: [pvc('c0', { storageClassName: 'zonal' })],
      storageClasses: [wffc('zonal', ['us-east-1c'])],
    });
    expect(zoneOf(r.nodeClaims[0])).toBe('us-east-1c');
  });

  it('keeps pods whose volumes are in different zones on different nodes', () => {
    const pvs: PersistentVolume[] = ['us-east-1a', 'us-east-1b'].map((z, i) => ({
      kind: 'PersistentVolume',
      metadata: { name: `pv-${i}` },
      spec: {
        nodeAffinity: {
          required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: [z] }] }] },
        },
      },
    }));
    const r = run({
      pods: [withClaim('a', 'c0'), withClaim('b', 'c1')],
      pvcs: [pvc('c0', { volumeName: 'pv-0' }), pvc('c1', { volumeName: 'pv-1' })],
      pvs,
    });
    expect(r.nodeClaims.map(zoneOf).sort()).toEqual(['us-east-1a', 'us-east-1b']);
  });

  it('cannot schedule when the volume zone is outside every NodePool', () => {
    const pool = nodePool({ requirements: [{ key: ZONE, operator: 'In', values: ['us-east-1a'] }] });
    const r = run({
      pods: [withClaim('db-0', 'c0')],
      pvcs: [pvc('c0', { storageClassName: 'zonal' })],
      storageClasses: [wffc('zonal', ['us-east-1c'])],
      nodePools: [pool],
    });
    expect(r.unschedulable[0]?.reason).toMatch(/incompatible requirement topology.kubernetes.io\/zone/);
  });

  it('launches nothing for a pod whose claim does not exist (kube-scheduler would not place it) and says why', () => {
    const r = run({ pods: [withClaim('db-0', 'nope'), withClaim('db-1', 'c1')], pvcs: [pvc('c1', {})] });
    expect(r.nodeClaims).toHaveLength(1);
    expect(r.nodeClaims[0]?.pods.map((p) => p.metadata.name)).toEqual(['db-1']);
    expect(r.unschedulable.map((u) => [u.pod.metadata.name, u.reason])).toEqual([
      ['db-0', 'pod cannot be scheduled: PersistentVolumeClaim default/nope not found'],
    ]);
  });
});
