import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'cdk.out/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The AWS SDK's notice that its 2027 releases need Node 22 (as cli/bin.mjs does): one per test file under Node 20.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
