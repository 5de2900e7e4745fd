import { afterAll, beforeAll } from 'vitest';
import { buildKubeConfig } from '../../shared/aws/eks-auth/kubeconfig';
import { KubeClusterApi } from '../../shared/kube/cluster-api';
import { FakeKubeApi } from '../fake-kube-api/server';
import { syncNodeContract } from './sync-node.contract';

const api = new FakeKubeApi();
beforeAll(() => api.start());
afterAll(() => api.stop());

syncNodeContract('KubeClusterApi', () => {
  const kc = buildKubeConfig({ cluster: 't', endpoint: api.url, tokens: { getToken: async () => 'token' } });
  return {
    cluster: new KubeClusterApi(kc, { timeoutMs: 2000 }),
    addNode: (name, labels, taints) => {
      api.put('nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, uid: `uid-${name}`, labels },
        spec: { providerID: `aws:///us-east-1a/i-${name}`, taints },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      });
    },
    cleanup: () => {
      for (const o of api.list('nodes')) api.remove('nodes', o.metadata.namespace, o.metadata.name);
    },
  };
});
