// The Lambda reads CSINodes through the real kube adapter (shared/kube) from the fake Kubernetes API and holds an
// existing node to its attach limit, as `simulate` does (docs/simulate-dump.md, Volume attach limits).
import { describe, expect, it } from 'vitest';
import { createTestbed } from '../../testkit/bed';
import { node, pod, useKubeClusterBed } from '../../testkit/kube-cluster-bed';
import { provision } from './provision';

const bed = useKubeClusterBed();
const { api } = bed;
const container = { name: 'app', image: 'nginx', resources: { requests: { cpu: '100m', memory: '128Mi' } } };
const mounting = (claimName: string) => ({
  containers: [container],
  volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }],
});

async function passWithLimit(count: number) {
  const t = createTestbed();
  for (const np of await t.cluster.listNodePools()) api.put('nodepools', np);
  for (const nc of await t.cluster.listNodeClasses()) api.put('ec2nodeclasses', nc);
  api.put('nodes', node('n1'));
  api.put('storageclasses', { metadata: { name: 'gp3' }, provisioner: 'ebs.csi.aws.com' });
  for (const name of ['a', 'b'])
    api.put('persistentvolumeclaims', { metadata: { name, namespace: 'default' }, spec: { storageClassName: 'gp3' } });
  api.put('csinodes', {
    metadata: { name: 'n1' },
    spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-n1', allocatable: { count } }] },
  });
  api.put(
    'pods',
    pod('running', { spec: { nodeName: 'n1', ...mounting('a') }, status: { phase: 'Running', conditions: [] } }),
  );
  api.put('pods', pod('next', { spec: mounting('b') }));
  return provision({ ...t.deps, kube: bed.cluster });
}

describe('CSINode attach limits in the Lambda', () => {
  it('places a pod on a node whose CSINode still has room for its volume', async () => {
    const result = await passWithLimit(2);
    expect(result.created).toEqual([]);
    expect(result.nominated).toBe(1);
    expect(api.requestsTo('GET', '/apis/storage.k8s.io/v1/csinodes')).toHaveLength(1);
  });

  it('launches a node for a pod whose volume the existing node cannot attach', async () => {
    const result = await passWithLimit(1);
    expect(result.created).toHaveLength(1);
    expect(result.nominated).toBe(0);
  });
});
