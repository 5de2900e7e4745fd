// `npm run mutate [target ...]`: scores each decision file in turn (all of them when none is named), one StrykerJS
// run per file so each report and score stands alone (docs/testing.md, "Mutation testing").
import { spawnSync } from 'node:child_process';
import { TARGETS } from './targets.mjs';

const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(TARGETS);
for (const name of names) {
  if (!TARGETS[name]) {
    console.error(`unknown target ${name}: expected one of ${Object.keys(TARGETS).join(', ')}`);
    process.exit(2);
  }
}
for (const [i, name] of names.entries()) {
  console.log(`[${i + 1}/${names.length}] mutating ${TARGETS[name].mutate}`);
  const run = spawnSync('npx', ['stryker', 'run', 'test/mutation/stryker.config.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, MUTATE_TARGET: name },
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
