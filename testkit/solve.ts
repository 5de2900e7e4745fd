// Shared helpers for the acceptance suite: run the public `solve` and look up where pods went.
import type { Pod } from '../shared/api/kube';
import { solve } from '../shared/scheduling/index';
import type { PlannedNodeClaim, SchedulingInput, SchedulingResult } from '../shared/scheduling/types';
import { input } from './builders';

export function run(o: Parameters<typeof input>[0]): SchedulingResult {
  return solve(input(o));
}

export function claimOf(r: SchedulingResult, pod: Pod | string): PlannedNodeClaim | undefined {
  const name = typeof pod === 'string' ? pod : pod.metadata.name;
  return r.nodeClaims.find((c) => c.pods.some((p) => p.metadata.name === name));
}

export function zoneOf(c: PlannedNodeClaim | undefined): string | undefined {
  return c?.labels['topology.kubernetes.io/zone'];
}

export function scheduledCount(r: SchedulingResult): number {
  return r.nodeClaims.reduce((n, c) => n + c.pods.length, 0) + r.existingNodes.reduce((n, e) => n + e.pods.length, 0);
}

export function totalCost(r: SchedulingResult): number {
  return r.nodeClaims.reduce((s, c) => s + c.cheapest.price, 0);
}

export type { SchedulingInput };
