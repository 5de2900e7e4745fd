// The scheduling engine's public surface: everything else calls only these.
import { lowerBound } from './duals';
import { loadLpSolver, lpSolverLoaded } from './lp';
import { Scheduler } from './scheduler';
import type { SchedulingInput, SchedulingResult } from './types';

export { Deadline } from './deadline';
export { allowedOfferings, typeCompatible } from './instancetypes';
export { isInstanceTypeLabel } from './labels';
export { whyNoInstanceTypes } from './no-types';
export { matchableTerms } from './preferences';
export { Requirements } from './requirements';
export { podRequests } from './resources';
export { firstUntolerated, toleratesHardTaints } from './taints';
export type * from './types';
export { loadLpSolver, lowerBound, lpSolverLoaded };

/** Plans where pending pods go: existing nodes first, then new NodeClaims, cheapest packing first. */
export function solve(input: SchedulingInput): SchedulingResult {
  return new Scheduler(input).solve();
}
