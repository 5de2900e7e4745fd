// Quick local timing: `npx tsx bench/scheduling-timing.ts [pods...]`. Runs Karpenter's benchmark (its five groups)
// on its 400 fake types, Karpless's mixed shapes on the embedded catalog, and unconstrained mixes for cost against the LP bound. Prints wall
// and CPU time (CPU time is the better guide on a shared machine).
import type { Pod } from '../shared/api/kube';
import { embeddedSnapshot, instanceTypesFor } from '../shared/catalog';
import type { InstanceType } from '../shared/catalog/types';
import { loadLpSolver, lowerBound, solve } from '../shared/scheduling/index';
import { input, nodePool } from '../testkit/builders';
import { benchmarkPods, karpenterDiversePods, mixedPods } from '../testkit/workloads';
import { syntheticInstanceTypes } from './synthetic-instance-types';
import { WORKLOAD_SEED } from './workloads';

// The embedded default NodePool's shape: linux, amd64, c/m/r, generation > 2.
const defaultPool = nodePool({
  requirements: [
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
    { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
    { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt', values: ['2'] },
  ],
});
await loadLpSolver();
const real = instanceTypesFor(embeddedSnapshot());
const realEligible = real.filter(
  (t) => ['c', 'm', 'r'].includes(t.info.category) && t.info.arch === 'amd64' && t.info.generation > 2,
);
const synthetic = syntheticInstanceTypes(400);

function measure(label: string, pods: Pod[], types: InstanceType[], eligible: InstanceType[], withBound: boolean) {
  const pool = types === synthetic ? nodePool() : defaultPool;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = solve(input({ pods, nodePools: [pool], types }));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const cost = r.nodeClaims.reduce((s, c) => s + c.cheapest.price, 0);
  const bound = withBound ? lowerBound(pods, eligible) : Number.NaN;
  console.log(
    `${label} ${pods.length}: wall ${wall.toFixed(0)} ms, cpu ${cpuMs.toFixed(0)} ms, ${Math.round((pods.length / wall) * 1000)} pods/s, ` +
      `${r.nodeClaims.length} nodes, ${r.unschedulable.length} unschedulable, $${cost.toFixed(3)}/h` +
      (withBound ? `, bound $${bound.toFixed(3)}/h, ratio ${(cost / bound).toFixed(4)}` : '') +
      `, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`,
  );
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
for (const n of sizes.length ? sizes : [1000, 5000]) {
  measure('karpenter synthetic', karpenterDiversePods(n, WORKLOAD_SEED), synthetic, synthetic, false);
  measure('mixed-shapes catalog', benchmarkPods(n, WORKLOAD_SEED), real, realEligible, false);
  measure('mixed synthetic', mixedPods(n), synthetic, synthetic, true);
  measure('mixed catalog', mixedPods(n), real, realEligible, true);
}
