// The scheduling engine's public surface: everything else calls only these.
import { lowerBound } from './duals';
import { loadLpSolver, lpSolverLoaded } from './lp';
import { Scheduler } from './scheduler';
import type { SchedulingInput, SchedulingResult } from './types';

export type * from './types';
export { loadLpSolver, lowerBound, lpSolverLoaded };

/** Plans where pending pods go: existing nodes first, then new NodeClaims, cheapest packing first. */
export function solve(input: SchedulingInput): SchedulingResult {
  return new Scheduler(input).solve();
}
