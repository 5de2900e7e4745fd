// Disruption sweep timing: a cluster of N nodes (about 15 pods each, on the real catalog's 16-vCPU c/m/r types,
// spot and on-demand) after a scale-down left a third of the nodes with few pods; one `planDisruption` is timed.
// `npx tsx bench/disruption.ts [nodes...]` prints one line per size (default 500, 2000, 5000).
import { performance } from 'node:perf_hooks';
import { defaultNodePool } from '../shared/api/default-nodepool';
import type { Pod } from '../shared/api/kube';
import { instanceTypesFor, loadCatalog } from '../shared/catalog';
import type { InstanceType } from '../shared/catalog/types';
import type { DisruptionInput, DisruptionNode } from '../shared/disruption';
import { nodeClassHash, planDisruption } from '../shared/disruption';
import { loadLpSolver, lowerBound } from '../shared/scheduling';
import { typesAllowedBy } from '../shared/sim';
import { boundPod, node } from '../testkit/disruption';
import { rng } from '../testkit/workloads';

export interface DisruptionBenchResult {
  nodes: number;
  pods: number;
  /** Wall time of one planDisruption. */
  ms: number;
  /** CPU time (user + system) of it: on a shared machine, wall time minus waiting for a core. */
  cpuMs: number;
  commands: number;
  removed: number;
  launched: number;
  savingPerHour: number;
  costPerHour: number;
  lowerBoundPerHour: number;
  solverCalls: number;
}

const CPU = ['100m', '250m', '500m', '750m', '1'];
const MEMORY = ['256Mi', '512Mi', '1Gi', '2Gi', '3Gi'];
const NOW = Date.parse('2026-01-05T12:00:00Z');

let cached: { types: InstanceType[]; hosts: InstanceType[] } | undefined;

function catalogTypes(): { types: InstanceType[]; hosts: InstanceType[] } {
  if (cached) return cached;
  const { nodePool, nodeClass } = defaultNodePool();
  const types = instanceTypesFor(loadCatalog(), nodeClass);
  const allowed = typesAllowedBy(nodePool.spec.template.spec.requirements, types);
  const hosts = allowed
    .filter((t) => t.info.vcpu >= 4 && t.info.vcpu <= 32 && /^(m5|c5|r5|m6i|c6i|r6i|m7i)\./.test(t.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  cached = { types, hosts };
  return cached;
}

/** The benchmark cluster: deterministic for a given size and seed. */
export interface BenchShape {
  /** The NodePool's disruption budget; 100% lets the sweep consider every node. Default 10%. */
  budget?: string;
  /** Fraction of nodes that lost most pods in a scale-down. Default 0.33. */
  scaleDown?: number;
  /** Give every node one large pod (about half the node) so no node's pods fit on the others: every candidate
   * needs the replace/merge solve, the sweep's slowest path. */
  anchored?: boolean;
}

export function disruptionBenchInput(nodes: number, seed = 7, shape: BenchShape = {}): DisruptionInput {
  const budget = shape.budget ?? '10%';
  const scaleDown = shape.scaleDown ?? 0.33;
  const { types, hosts } = catalogTypes();
  const { nodePool, nodeClass } = defaultNodePool();
  nodePool.spec.disruption = {
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfter: '0s',
    budgets: [{ nodes: budget }],
  };
  const r = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
  const out: DisruptionNode[] = [];
  for (let i = 0; i < nodes; i++) {
    const capacityType = r() < 0.7 ? 'spot' : 'on-demand';
    const name = `node-${i}`;
    const pods: Pod[] = [];
    let cpu = 0;
    let mem = 0;
    for (let k = 0; k < 13 + Math.floor(r() * 5); k++) {
      const p = boundPod(name, pick(CPU), pick(MEMORY), { name: `${name}-p${k}`, labels: { app: `app-${k % 20}` } });
      cpu += parseCpu(String(p.spec.containers[0]?.resources?.requests?.cpu));
      mem += parseMi(String(p.spec.containers[0]?.resources?.requests?.memory));
      pods.push(p);
    }
    // Provisioned right-sized (the cheapest host that holds the pods), a fifth of them one size up; then the
    // scale-down took most pods off a third of the nodes.
    const fitting = hosts.filter(
      (t) => (t.allocatable.cpu ?? 0) * 0.95 >= cpu && ((t.allocatable.memory ?? 0) / 2 ** 20) * 0.95 >= mem,
    );
    const byPrice = fitting.sort((a, b) => cheapest(a, capacityType) - cheapest(b, capacityType));
    const type = (r() < 0.2 ? (byPrice[3] ?? byPrice[0]) : byPrice[0]) as InstanceType;
    if (r() < scaleDown) pods.splice(2 + Math.floor(r() * 3));
    if (shape.anchored) {
      const big = boundPod(name, `${Math.round((type.allocatable.cpu ?? 0) * 0.5)}m`, '1Gi', {
        name: `${name}-anchor`,
      });
      pods.push(big);
    }
    const zones = type.offerings.filter((o) => o.capacityType === capacityType && o.available);
    const zone = zones.sort((a, b) => a.price - b.price)[0]?.zone ?? 'us-east-1a';
    const n = node(name, { instanceType: type, capacityType, zone, pods, pool: nodePool, createdAt: NOW - 3_600_000 });
    n.claim.nodeClass = nodeClass.metadata.name;
    n.claim.nodeClassHash = nodeClassHash(nodeClass);
    out.push(n);
  }
  return {
    now: NOW,
    cluster: 'bench',
    nodes: out,
    nodePools: [nodePool],
    nodeClasses: [nodeClass],
    instanceTypes: new Map([[nodePool.metadata.name, types]]),
  };
}

function cheapest(t: InstanceType, capacityType: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (const o of t.offerings) if (o.available && o.capacityType === capacityType) best = Math.min(best, o.price);
  return best;
}

const parseCpu = (q: string): number => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
const parseMi = (q: string): number => (q.endsWith('Gi') ? Number(q.slice(0, -2)) * 1024 : Number(q.slice(0, -2)));

/** One timed sweep. `budget` is the NodePool's disruption budget: 10% is the default, 100% makes the sweep
 * consider every candidate (the worst case for decision time). */
export async function runDisruptionBench(
  nodes: number,
  shape: BenchShape = {},
  seed = 7,
): Promise<DisruptionBenchResult> {
  // Loaded before the clock starts: a warm Lambda has HiGHS already.
  await loadLpSolver();
  const input = disruptionBenchInput(nodes, seed, shape);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const plan = planDisruption(input);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const pods = input.nodes.flatMap((n) => n.node.pods);
  const costPerHour = input.nodes.reduce((s, n) => s + (n.node.pricePerHour ?? 0), 0);
  const allowed = typesAllowedBy(input.nodePools[0]?.spec.template.spec.requirements ?? [], catalogTypes().types);
  return {
    nodes,
    pods: pods.length,
    ms,
    cpuMs,
    commands: plan.commands.length,
    removed: plan.commands.reduce((s, c) => s + c.candidates.length, 0),
    launched: plan.commands.reduce((s, c) => s + c.replacements.length, 0),
    savingPerHour: plan.commands.reduce((s, c) => s + c.savingPerHour, 0),
    costPerHour,
    lowerBoundPerHour: lowerBound(pods, allowed),
    solverCalls: plan.stats.solverCalls,
  };
}

/** The shapes the timing script reports: the default budget, every node considered, and every node needing a
 * solve. */
export const SHAPES: BenchShape[] = [{}, { budget: '100%' }, { budget: '100%', anchored: true }];

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  for (const n of sizes.length ? sizes : [500, 2000, 5000]) {
    for (const shape of SHAPES) {
      const r = await runDisruptionBench(n, shape);
      console.log(
        `disruption ${n} nodes ${JSON.stringify(shape)}, ${r.pods} pods: ${r.ms.toFixed(0)} ms (cpu ${r.cpuMs.toFixed(0)} ms), ${r.commands} commands, -${r.removed}/+${r.launched} nodes, ` +
          `saving $${r.savingPerHour.toFixed(2)}/h of $${r.costPerHour.toFixed(2)}/h (LB $${r.lowerBoundPerHour.toFixed(2)}/h), ${r.solverCalls} solves`,
      );
    }
  }
}
