import { defineConfig } from 'vitest/config';

/** Suites that talk to moto_server: only these start it (test/setup/aws-emulator.global.ts). */
const EMULATOR_SUITES = ['test/aws-emulator/**/*.test.ts', '**/*.emulator.test.ts'];
// .stryker-tmp: mutation runs' sandbox copies of the tree (docs/testing.md, "Mutation testing").
const EXCLUDE = ['node_modules/**', 'cdk.out/**', '.stryker-tmp/**'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The AWS SDK's notice that its 2027 releases need Node 22 (as cli/bin.mjs does): one per test file under Node 20.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['**/*.test.ts'], exclude: [...EXCLUDE, ...EMULATOR_SUITES] } },
      {
        extends: true,
        test: {
          name: 'aws-emulator',
          include: EMULATOR_SUITES,
          exclude: EXCLUDE,
          // moto_server takes a few seconds to start, a minute when it must be installed first.
          globalSetup: ['test/setup/aws-emulator.global.ts'],
        },
      },
    ],
  },
});
