import { afterAll, beforeAll } from 'vitest';
import { buildKubeConfig } from '../../shared/aws/eks-auth/kubeconfig';
import { KubeClusterApi } from '../../shared/kube/cluster-api';
import { SimCluster } from '../../shared/sim/sim-cluster';
import { VirtualClock } from '../../shared/sim/virtual-clock';
import { FakeKubeApi } from '../fake-kube-api/server';
import { replaceStatusContract } from './replace-status.contract';

const api = new FakeKubeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());

const PLURAL = { NodePool: 'nodepools', EC2NodeClass: 'ec2nodeclasses' } as const;

replaceStatusContract('KubeClusterApi', () => {
  const kc = buildKubeConfig({ cluster: 't', endpoint: api.url, tokens: { getToken: async () => 'token' } });
  return {
    cluster: new KubeClusterApi(kc, { timeoutMs: 2000 }),
    add: (object) => {
      api.put(PLURAL[object.kind], object);
    },
    cleanup: () => {
      for (const r of Object.values(PLURAL)) for (const o of api.list(r)) api.remove(r, undefined, o.metadata.name);
    },
  };
});

replaceStatusContract('SimCluster', () => {
  const cluster = new SimCluster({ clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
  return { cluster, add: (object) => void cluster.load([object]) };
});
