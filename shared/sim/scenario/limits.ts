// Bounds on a scenario's size, so a typo such as `until: 100000000h` or `every: 1s` fails at once with the field named
// instead of running for hours (docs/api.md, "Input limits").
import type { Problems } from '../../api/problems';
import { formatDuration } from '../../api/quantity';
import type { ScenarioStep } from './types';
import { estimateWork } from './work';

export const SCENARIO_LIMITS = Object.freeze({
  /** Simulated time: 30 days covers a month of diurnal load, weekly budgets and expiry. */
  maxUntilMs: 30 * 24 * 3_600_000,
  /** Steps as written. */
  maxSteps: 1000,
  /** Step firings, counting every repeat of an `every` step. */
  maxFirings: 100_000,
  /** Disruption sweeps: spec.until / spec.sweepEvery. */
  maxSweeps: 100_000,
  /** (1 + √peak pods) × run-loop instants (sweeps, garbage collections, step firings): measured at 2 ms or less per
   * unit on a 2-core machine, so a scenario at the cap runs for at most about 3 minutes (docs/scenarios.md,
   * "Size limits"). */
  maxWork: 80_000,
});

export function checkScenarioSize(
  p: Problems,
  s: { until: number; sweepEvery: number; steps: ScenarioStep[]; stepCount: number },
): void {
  const L = SCENARIO_LIMITS;
  if (s.until > L.maxUntilMs) {
    p.error('spec.until', `is longer than the limit of ${formatDuration(L.maxUntilMs)} of simulated time`);
    return;
  }
  if (s.stepCount > L.maxSteps) p.error('spec.steps', `has ${s.stepCount} steps; the limit is ${L.maxSteps}`);
  const tooManySweeps = s.sweepEvery > 0 && s.until / s.sweepEvery > L.maxSweeps;
  if (tooManySweeps) {
    p.error(
      'spec.sweepEvery',
      `${formatDuration(s.sweepEvery)} over ${formatDuration(s.until)} is more than ${L.maxSweeps} sweeps; sweep less often`,
    );
  }
  let firings = 0;
  for (const step of s.steps) {
    firings += step.every && s.until > step.at ? Math.floor((s.until - step.at) / step.every) + 1 : 1;
    if (firings > L.maxFirings) {
      p.error(`${step.path}.every`, `repeats past the limit of ${L.maxFirings} step firings in one scenario`);
      return;
    }
  }
  // The work follows from the sweeps: one error, on the field to change, is enough.
  if (!tooManySweeps) checkWork(p, s, firings);
}

/** Refuses a scenario whose work estimate would run for more than a few minutes, naming what drives the work. */
function checkWork(p: Problems, s: { until: number; sweepEvery: number; steps: ScenarioStep[] }, firings: number) {
  const { peakPods, instants, work } = estimateWork(s, firings);
  if (work <= SCENARIO_LIMITS.maxWork) return;
  const n = (x: number): string => x.toLocaleString('en-US');
  p.error(
    'spec.until',
    `(1 + √${n(peakPods)} pods) × ${n(instants)} instants (sweepEvery ${formatDuration(s.sweepEvery)} and a ` +
      `collection every 2m over ${formatDuration(s.until)}, plus ${n(firings)} step firings) is ${n(work)} units of ` +
      `work, past the limit of ${n(SCENARIO_LIMITS.maxWork)}; use fewer pods (spec.steps replicas), a shorter ` +
      'until or a longer sweepEvery',
  );
}
