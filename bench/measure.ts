// Measures one benchmark workload. Building the inputs is not timed; the solve is. Peak RSS is the process's, so
// `npm run bench` runs each workload in a fresh child process (bench/child.ts).
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { defaultNodePool } from '../shared/api/default-nodepool';
import type { EC2NodeClass, NodePool } from '../shared/api/karpenter';
import type { Pod } from '../shared/api/kube';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import type { InstanceType } from '../shared/catalog/types';
import { trimPod } from '../shared/kube';
import { loadLpSolver, lowerBound, solve } from '../shared/scheduling';
import { typesAllowedBy } from '../shared/sim';
import { syntheticInstanceTypes } from './synthetic-instance-types';
import type { Measurement } from './targets';
import { benchNodePool, distinctNodePool, WORKLOAD_SEED, type Workload } from './workloads';

async function poolAndTypes(
  workload: Workload,
  catalogPath?: string,
): Promise<{ pool: { nodePool: NodePool; nodeClass: EC2NodeClass }; types: InstanceType[] }> {
  if (workload.pool === 'bench') return { pool: benchNodePool(), types: syntheticInstanceTypes(400) };
  const pool = workload.pool === 'distinct' ? distinctNodePool() : defaultNodePool();
  return { pool, types: instanceTypesFor(await loadCatalog(catalogPath), pool.nodeClass) };
}

/**
 * The pods as the provisioner holds them: the API server's JSON, trimmed by the one function the Kubernetes adapter
 * applies to every listed pod (shared/kube/trim.ts), rather than the test builders' objects, whose varied shapes make
 * a cold solve slower (docs/performance.md, "Method"). Not timed.
 */
function asReceived(pods: Pod[]): Pod[] {
  return (JSON.parse(JSON.stringify(pods)) as unknown[]).map(trimPod);
}

export async function measureWorkload(workload: Workload, catalogPath?: string): Promise<Measurement> {
  const { pool, types } = await poolAndTypes(workload, catalogPath);
  const instanceTypes = new Map([[pool.nodePool.metadata.name, types]]);
  // Compiling HiGHS (~70-85 ms, once per container) is not part of a solve (docs/performance.md, "Method").
  await loadLpSolver();
  const timedSolve = (pods: Pod[]) => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const result = solve({ pods, nodePools: [pool.nodePool], nodeClasses: [pool.nodeClass], instanceTypes });
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return { result, wallMs, cpuMs: (used.user + used.system) / 1000 };
  };
  const pods = asReceived(workload.build(WORKLOAD_SEED));
  // The headline is the cold solve, as a fresh Lambda would run it. The second solve either shows the warm
  // (JIT-compiled) speed on new pods from another seed, closer to what Go's benchmark loop reports, or plans the
  // comparison a CPU-ratio target is against.
  const { result, wallMs, cpuMs } = timedSolve(pods);
  const loadAverage = loadavg().map((l) => Math.round(l * 100) / 100);
  const second =
    workload.second === 'warm'
      ? timedSolve(asReceived(workload.build(WORKLOAD_SEED + 1)))
      : workload.second === 'compare' && workload.compare
        ? timedSolve(asReceived(workload.compare(WORKLOAD_SEED)))
        : undefined;
  // The process's high-water mark over both solves (and the catalog, as a Lambda holds it too), read before the LP
  // bound below adds its own.
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  const placed = result.nodeClaims.flatMap((c) => c.pods);
  const costPerHour = result.nodeClaims.reduce((sum, c) => sum + c.cheapest.price, 0);
  // The bound uses what the NodePool allows (types and offerings), as the plan had to.
  const allowed = typesAllowedBy(pool.nodePool.spec.template.spec.requirements, types);
  const lowerBoundPerHour = placed.length > 0 ? lowerBound(placed, allowed) : 0;
  const measurement: Measurement = {
    workload: workload.name,
    description: workload.description,
    pods: pods.length,
    scheduledPods: pods.length - result.unschedulable.length - (result.deferred?.length ?? 0),
    wallMs,
    podsPerSecond: pods.length / (wallMs / 1000),
    cpuMs,
    peakRssBytes,
    nodeCount: result.nodeClaims.length,
    costPerHour,
    lowerBoundPerHour,
    loadAverage,
  };
  if (second && workload.second === 'warm') measurement.warmWallMs = second.wallMs;
  if (second && workload.second === 'compare') {
    measurement.compareCpuMs = second.cpuMs;
    measurement.cpuRatio = cpuMs / second.cpuMs;
  }
  if (lowerBoundPerHour > 0) measurement.costRatio = costPerHour / lowerBoundPerHour;
  return measurement;
}
