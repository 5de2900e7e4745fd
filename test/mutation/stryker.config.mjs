// StrykerJS over one decision file at a time: `npm run mutate` (test/mutation/run.mjs) sets MUTATE_TARGET.
// docs/testing.md ("Mutation testing") says what it covers and why these settings.
import { selectedTarget } from './targets.mjs';

const target = selectedTarget();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.mjs', related: true },
  mutate: [target.mutate],
  coverageAnalysis: 'perTest',
  // A static mutant (a module-level constant) would rerun every test of the target per mutant; they are few and
  // reported as ignored.
  ignoreStatic: true,
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 1),
  timeoutMS: 60_000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${target.name}.json` },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
