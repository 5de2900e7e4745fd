// Measures one benchmark workload. Building the inputs is not timed; the solve is. Peak RSS is the process's, so
// `karpless bench` runs each workload in a fresh child process (bench/child.ts).
import { performance } from 'node:perf_hooks';
import { defaultNodePool } from '../shared/api/default-nodepool';
import type { EC2NodeClass, NodePool } from '../shared/api/karpenter';
import type { Pod } from '../shared/api/kube';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import type { InstanceType } from '../shared/catalog/types';
import { loadLpSolver, lowerBound, solve } from '../shared/scheduling';
import { typesAllowedBy } from '../shared/sim/pool-types';
import { syntheticInstanceTypes } from './synthetic-instance-types';
import type { Measurement } from './targets';
import { benchNodePool, WORKLOAD_SEED, type Workload, workloadPods } from './workloads';

export async function measureWorkload(workload: Workload, catalogPath?: string): Promise<Measurement> {
  let pool: { nodePool: NodePool; nodeClass: EC2NodeClass };
  let types: InstanceType[];
  if (workload.catalog === 'synthetic') {
    pool = benchNodePool();
    types = syntheticInstanceTypes(400);
  } else {
    pool = defaultNodePool();
    types = instanceTypesFor(await loadCatalog(catalogPath), pool.nodeClass);
  }
  const instanceTypes = new Map([[pool.nodePool.metadata.name, types]]);
  // Compiling HiGHS (~70-85 ms, once per container) is not part of a solve; docs/performance.md reports it apart.
  await loadLpSolver();
  const timedSolve = (pods: Pod[]) => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const result = solve({ pods, nodePools: [pool.nodePool], nodeClasses: [pool.nodeClass], instanceTypes });
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return { result, wallMs, cpuMs: (used.user + used.system) / 1000 };
  };
  const pods = workloadPods(workload);
  // The headline is the cold solve, as a fresh Lambda would run it; a second solve of new pods from another seed
  // shows the warm (JIT-compiled) speed, closer to what Go's benchmark loop reports.
  const { result, wallMs, cpuMs } = timedSolve(pods);
  const warm = timedSolve(workloadPods(workload, WORKLOAD_SEED + 1));
  const placed = result.nodeClaims.flatMap((c) => c.pods);
  const costPerHour = result.nodeClaims.reduce((sum, c) => sum + c.cheapest.price, 0);
  // The bound uses what the NodePool allows (types and offerings), as the plan had to.
  const allowed = typesAllowedBy(pool.nodePool.spec.template.spec.requirements, types);
  const lowerBoundPerHour = placed.length > 0 ? lowerBound(placed, allowed) : 0;
  const measurement: Measurement = {
    workload: workload.name,
    description: workload.description,
    pods: pods.length,
    scheduledPods: pods.length - result.unschedulable.length,
    wallMs,
    podsPerSecond: pods.length / (wallMs / 1000),
    cpuMs,
    warmWallMs: warm.wallMs,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    nodeCount: result.nodeClaims.length,
    costPerHour,
    lowerBoundPerHour,
  };
  if (lowerBoundPerHour > 0) measurement.costRatio = costPerHour / lowerBoundPerHour;
  return measurement;
}
