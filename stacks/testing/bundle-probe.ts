// Bundled beside a function by stacks/bundle.test.ts: solves a tiny LP, loads the embedded catalog, and lists nodes
// from a local API server through the Kubernetes adapter, so the test proves that a bundle directory holds what the
// first two read at run time and that the slimmed client-node (aliases, prebuild) still authenticates and calls; and
// sends two AWS requests through the bundled SDK (stacks/testing/sdk-probe.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildKubeConfig } from '../../shared/aws/eks-auth/kubeconfig';
import { embeddedSnapshot } from '../../shared/catalog/load';
import { KubeClusterApi } from '../../shared/kube/cluster-api';
import { loadLpSolver, solveCoveringLp } from '../../shared/scheduling/lp';
import { runSdkProbe } from './sdk-probe';

await loadLpSolver();
const lp = solveCoveringLp(
  [10, 15],
  [
    { price: 1, supply: [2, 1] },
    { price: 2, supply: [1, 3] },
  ],
);

let authorization: string | undefined;
const server = createServer((req, res) => {
  authorization = req.headers.authorization;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'NodeList', metadata: {}, items: [{ metadata: { name: 'n1' }, spec: {} }] }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const kc = buildKubeConfig({
  cluster: 'probe',
  endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  tokens: { getToken: async () => 'probe-token' },
});
const nodes = await new KubeClusterApi(kc).listNodes();
server.close();
const sdk = await runSdkProbe();

console.log(
  JSON.stringify({
    lpCost: lp.cost,
    instanceTypes: embeddedSnapshot().types.length,
    nodes: nodes.map((n) => n.metadata.name),
    authorization,
    sdk,
  }),
);
