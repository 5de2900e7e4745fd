// Fuzzes the scenario work cap (docs/scenarios.md, "Size limits"): scenarios within the simulated-time, step and sweep
// limits, of any pods × simulated time × sweep period, are accepted only when their work estimate is within the cap,
// and otherwise refused with one line naming the fields that drive the work.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyManifestSet } from '../../shared/api/manifest-set';
import { ValidationError } from '../../shared/errors';
import { SCENARIO_LIMITS } from '../../shared/sim/scenario/limits';
import { parseScenario } from '../../shared/sim/scenario/parse';
import { FUZZ_RUNS, FUZZ_SEED } from './runs';

const MIN = 60_000;
const size = fc.record({
  untilMin: fc.integer({ min: 1, max: 720 * 60 }),
  sweepSec: fc.integer({ min: 30, max: 3600 }),
  replicas: fc.integer({ min: 1, max: 100_000 }),
  everyMin: fc.option(fc.integer({ min: 5, max: 24 * 60 }), { nil: undefined }),
});
type Size = typeof size extends fc.Arbitrary<infer T> ? T : never;

function scenarioText(s: Size): string {
  const every = s.everyMin === undefined ? '' : `, every: ${s.everyMin}m`;
  return [
    'apiVersion: karpless.dev/v1alpha1',
    'kind: Scenario',
    'metadata: { name: work }',
    'spec:',
    `  until: ${s.untilMin}m`,
    `  sweepEvery: ${s.sweepSec}s`,
    '  steps:',
    `    - { at: 0s${every}, scale: { kind: Deployment, namespace: shop, name: web, replicas: ${s.replicas} } }`,
    '',
  ].join('\n');
}

/** The work as docs/scenarios.md states it: (1 + √peak pods) × (sweeps + 2-minute collections + step firings). */
function documentedWork(s: Size): number {
  const until = s.untilMin * MIN;
  const firings = s.everyMin === undefined ? 1 : Math.floor(until / (s.everyMin * MIN)) + 1;
  const instants = Math.floor(until / (s.sweepSec * 1000)) + Math.floor(until / (2 * MIN)) + firings;
  return Math.ceil((1 + Math.sqrt(s.replicas)) * instants);
}

describe('scenario work cap', () => {
  it(`accepts within the cap and refuses past it, with one line (${FUZZ_RUNS} cases)`, async () => {
    const outcomes = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(size, async (s) => {
        const over = documentedWork(s) > SCENARIO_LIMITS.maxWork;
        try {
          await parseScenario(scenarioText(s), 'work.yaml', async () => emptyManifestSet());
          outcomes.accepted++;
          expect(over).toBe(false);
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          outcomes.refused++;
          expect(over).toBe(true);
          expect(err.problems).toHaveLength(1);
          expect(err.problems[0]).toMatch(
            /^work\.yaml#1 Scenario\/work: spec\.until: \(1 \+ √[\d,]+ pods\) × [\d,]+ instants .* units of work, past the limit of 80,000; use fewer pods/,
          );
        }
      }),
      { numRuns: FUZZ_RUNS, seed: FUZZ_SEED },
    );
    // Both sides of the cap were tried: a run that only ever accepted or only refused would prove nothing.
    expect(outcomes.accepted).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});
