// The JSON report of a scenario run: the `karpless simulate` §5 fields for the final state (live NodeClaims with
// their pods, nodes without a claim, pods left pending, warnings, summary), then the run's story: timeline, cost
// over time, fleet over time, totals and violations. Field order is fixed so runs diff cleanly.
import { formatResourceList } from '../../api/resources';
import { instanceFields, nodeLabels, type ReportedNodeClaim } from '../node-report';
import type { ViolationRecord, Violations } from './observer';
import type { CostSample, FleetSample, PendingSample, TimelineEntry, Totals } from './recorder';
import type { ScenarioRun } from './runner';

/** A claim as the scenario left it: the simulate report's fields plus its state, node and creation time. */
export interface ScenarioNodeClaim extends ReportedNodeClaim {
  state: string;
  nodeName?: string;
  createdAt: string;
}

export interface ScenarioReport {
  scenario: string;
  seed: number;
  startedAt: string;
  until: string;
  nodeClaims: ScenarioNodeClaim[];
  existingNodes: { name: string; pods: string[] }[];
  unschedulable: { pod: string; reason: string }[];
  warnings: string[];
  summary: { pods: number; scheduledPods: number; nodeClaims: number; costPerHour: number; lowerBoundPerHour: number };
  timeline: TimelineEntry[];
  costOverTime: CostSample[];
  nodesOverTime: FleetSample[];
  pendingOverTime: PendingSample[];
  totals: Totals;
  violations: Violations;
  violationDetails: ViolationRecord[];
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

export async function buildScenarioReport(run: ScenarioRun): Promise<ScenarioReport> {
  const { cloud, cluster, store } = run.world;
  const claims = (await store.list()).filter((c) => c.state !== 'Terminated' && c.state !== 'Failed');
  const bound = await cluster.listPods();
  const pending = await cluster.listPendingPods();
  const podsOn = new Map<string, string[]>();
  for (const p of bound) {
    const list = podsOn.get(p.spec.nodeName ?? '') ?? [];
    list.push(`${p.metadata.namespace}/${p.metadata.name}`);
    podsOn.set(p.spec.nodeName ?? '', list);
  }
  const nodeClaims: ScenarioNodeClaim[] = [];
  for (const c of claims) {
    const launch = c.instanceId ? cloud.launchOf(c.instanceId) : undefined;
    if (!launch) continue;
    const { instance, instanceType } = launch;
    nodeClaims.push({
      name: c.name,
      state: c.state,
      nodePool: c.nodePool,
      nodeClass: c.nodeClass,
      ...(c.nodeName ? { nodeName: c.nodeName } : {}),
      ...instanceFields(instance, instanceType),
      requests: formatResourceList(c.requests),
      instanceTypeOptions: c.instanceTypeOptions,
      labels: nodeLabels(instance, instanceType, c.nodePool, c.labels),
      taints: c.taints,
      startupTaints: c.startupTaints,
      instanceId: instance.instanceId,
      providerID: instance.providerID,
      createdAt: c.createdAt,
      pods: [...(c.nodeName ? (podsOn.get(c.nodeName) ?? []) : [])].sort(),
    });
  }
  const claimed = new Set(claims.flatMap((c) => (c.nodeName ? [c.nodeName] : [])));
  const existingNodes = (await cluster.listNodes())
    .filter((n) => !claimed.has(n.metadata.name))
    .map((n) => ({ name: n.metadata.name, pods: [...(podsOn.get(n.metadata.name) ?? [])].sort() }));
  const lastReason = new Map<string, string>();
  for (const e of cluster.events) {
    if (e.reason === 'FailedScheduling') lastReason.set(`${e.involved.namespace}/${e.involved.name}`, e.message);
  }
  const unschedulable = pending.map((p) => {
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    return { pod: key, reason: lastReason.get(key) ?? 'pending: not yet placed when the scenario ended' };
  });
  return {
    scenario: run.scenario,
    seed: run.seed,
    startedAt: run.startedAt,
    until: run.until,
    nodeClaims,
    existingNodes,
    unschedulable,
    warnings: run.warnings,
    summary: {
      pods: bound.length + pending.length,
      scheduledPods: bound.length,
      nodeClaims: nodeClaims.length,
      costPerHour: round(nodeClaims.reduce((s, c) => s + c.pricePerHour, 0)),
      lowerBoundPerHour: round(run.finalLowerBoundPerHour),
    },
    timeline: run.timeline,
    costOverTime: run.costOverTime,
    nodesOverTime: run.fleetOverTime,
    pendingOverTime: run.pendingOverTime,
    totals: run.totals,
    violations: run.violations,
    violationDetails: run.violationRecords,
  };
}
