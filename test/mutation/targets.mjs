// The decision files mutation testing scores, each with the tests that judge it (docs/testing.md, "Mutation testing").
// A mutant runs only the tests that cover it, but every listed file is loaded for the first, unmutated run: the globs
// stay narrow because two cores run it.

const SCHEDULING = ['shared/scheduling/*.test.ts', 'test/karpenter/scheduling/*.test.ts'];
const DISRUPTION = ['shared/disruption/*.test.ts', 'test/karpenter/disruption/*.test.ts'];

/** @type {Record<string, { mutate: string; tests: string[] }>} */
export const TARGETS = {
  topology: { mutate: 'shared/scheduling/topology.ts', tests: SCHEDULING },
  existingnode: { mutate: 'shared/scheduling/existingnode.ts', tests: SCHEDULING },
  template: { mutate: 'shared/scheduling/template.ts', tests: SCHEDULING },
  requirements: { mutate: 'shared/scheduling/requirements.ts', tests: SCHEDULING },
  consolidation: { mutate: 'shared/disruption/consolidation.ts', tests: DISRUPTION },
  candidate: { mutate: 'shared/disruption/candidate.ts', tests: DISRUPTION },
  budgets: { mutate: 'shared/disruption/budgets.ts', tests: ['shared/disruption/budgets.test.ts', ...DISRUPTION] },
  drift: { mutate: 'shared/disruption/drift.ts', tests: DISRUPTION },
};

/** The target a run scores: its name from MUTATE_TARGET, its tests narrowed by MUTATE_TESTS (comma-separated globs). */
export function selectedTarget(env = process.env) {
  const name = env.MUTATE_TARGET ?? '';
  const target = TARGETS[name];
  if (!target)
    throw new Error(`MUTATE_TARGET=${name || '(unset)'}: expected one of ${Object.keys(TARGETS).join(', ')}`);
  const tests = env.MUTATE_TESTS ? env.MUTATE_TESTS.split(',').filter(Boolean) : target.tests;
  return { name, mutate: env.MUTATE_LINES ? `${target.mutate}:${env.MUTATE_LINES}` : target.mutate, tests };
}
