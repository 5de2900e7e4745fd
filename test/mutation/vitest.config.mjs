// The vitest configuration of a mutation run: the unit project's settings over only the selected target's tests.
import { defineConfig } from 'vitest/config';
import { selectedTarget } from './targets.mjs';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: selectedTarget().tests,
    exclude: ['node_modules/**', 'cdk.out/**', '**/*.emulator.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
