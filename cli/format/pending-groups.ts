// Pending pods grouped by owner and reason (docs/simulate-dump.md, "Reading the report"): 150 replicas against a
// 100-CPU limit are one line, `default/app (150 replicas): 52 pending — NodePool default: limit cpu 100`, not 52.
import type { Pod } from '../../shared/api/kube';
import { podKey } from '../../shared/api/kube';
import type { SimulationResult } from '../../shared/sim';

export interface PendingGroup {
  /** The controller the pods share, as `namespace/name`; absent for a pod of its own. */
  owner?: string;
  /** Pods of that owner the input holds, wherever they went. */
  replicas?: number;
  reason: string;
  /** The pending pods, as `namespace/name`, in natural order (app-2 before app-10). */
  pods: string[];
}

/** Orders names as people count: digit runs compare as numbers. */
export const naturalOrder = new Intl.Collator('en', { numeric: true }).compare;

function ownerOf(pod: Pod): string | undefined {
  const refs = pod.metadata.ownerReferences ?? [];
  const owner = refs.find((r) => r.controller) ?? refs[0];
  return owner ? `${pod.metadata.namespace}/${owner.name}` : undefined;
}

/** Every pod of the result: placed, bound, pending or deferred. */
function allPods(result: SimulationResult): Pod[] {
  return [
    ...result.nodeClaims.flatMap((c) => c.plan.pods),
    ...result.existingNodes.flatMap((n) => [...n.pods, ...n.boundPods]),
    ...result.unschedulable.map((u) => u.pod),
    ...(result.deferred ?? []),
  ];
}

export function pendingGroups(result: SimulationResult): PendingGroup[] {
  if (result.unschedulable.length === 0) return [];
  const replicas = new Map<string, number>();
  for (const pod of allPods(result)) {
    const owner = ownerOf(pod);
    if (owner) replicas.set(owner, (replicas.get(owner) ?? 0) + 1);
  }
  const groups = new Map<string, PendingGroup>();
  for (const { pod, reason } of result.unschedulable) {
    const owner = ownerOf(pod);
    const key = `${owner ?? podKey(pod)}\n${reason}`;
    const group = groups.get(key) ?? {
      ...(owner ? { owner, replicas: replicas.get(owner) ?? 0 } : {}),
      reason,
      pods: [],
    };
    group.pods.push(podKey(pod));
    groups.set(key, group);
  }
  for (const g of groups.values()) g.pods.sort(naturalOrder);
  return [...groups.values()].sort(
    (a, b) => naturalOrder(a.owner ?? a.pods[0] ?? '', b.owner ?? b.pods[0] ?? '') || naturalOrder(a.reason, b.reason),
  );
}

/** How many pod names a group lists before it counts the rest. */
const NAMES_SHOWN = 5;

/** The text lines of the groups: one per group, and the names of an owner's pods below it. */
export function pendingLines(groups: readonly PendingGroup[]): string[] {
  const out: string[] = [];
  for (const g of groups) {
    if (!g.owner) {
      out.push(`  ${g.pods[0]}: ${g.reason}`);
      continue;
    }
    out.push(`  ${g.owner} (${g.replicas} replicas): ${g.pods.length} pending — ${g.reason}`);
    const names = g.pods.slice(0, NAMES_SHOWN).map((p) => p.slice(p.indexOf('/') + 1));
    const rest = g.pods.length - names.length;
    out.push(`    ${names.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`);
  }
  return out;
}
