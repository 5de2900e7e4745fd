// Quick local timing: `npx tsx shared/scheduling/testing/timing.ts [pods...]`. Runs Karpenter's benchmark mix on 400
// synthetic types and an unconstrained mix on the fixture catalog, printing pods/s, nodes, cost and the LP bound.
import { lowerBound, solve } from '../index';
import { input, nodePool } from './builders';
import { fixtureInstanceTypes, syntheticInstanceTypes } from './instancetypes';
import { benchmarkPods, mixedPods } from './workloads';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const synthetic = syntheticInstanceTypes(400);
for (const n of sizes.length ? sizes : [1000, 5000]) {
  const pods = benchmarkPods(n);
  const t = performance.now();
  const r = solve(input({ pods, nodePools: [nodePool()], types: synthetic }));
  const ms = performance.now() - t;
  const cost = r.nodeClaims.reduce((s, c) => s + c.cheapest.price, 0);
  console.log(
    `bench-mix ${n}: ${ms.toFixed(0)} ms, ${Math.round((n / ms) * 1000)} pods/s, ${r.nodeClaims.length} nodes, ` +
      `${r.unschedulable.length} unschedulable, $${cost.toFixed(3)}/h, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`,
  );
  for (const [label, types] of [
    ['fixture', fixtureInstanceTypes()],
    ['synthetic', synthetic],
  ] as const) {
    const mixed = mixedPods(n);
    const t2 = performance.now();
    const r2 = solve(input({ pods: mixed, types: [...types] }));
    const ms2 = performance.now() - t2;
    const cost2 = r2.nodeClaims.reduce((s, c) => s + c.cheapest.price, 0);
    const lb = lowerBound(mixed, [...types]);
    console.log(
      `mixed ${n} on ${label}: ${ms2.toFixed(0)} ms, ${r2.nodeClaims.length} nodes, $${cost2.toFixed(3)}/h, ` +
        `lower bound $${lb.toFixed(3)}/h, ratio ${(cost2 / lb).toFixed(4)}`,
    );
  }
}
