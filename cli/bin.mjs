#!/usr/bin/env node
// The AWS SDK warns on every run under Node 20 that its releases from 2027 need Node 22. The CLI supports Node 20 and
// pins the SDK in package-lock.json, so the warning is noise here; the Lambda functions run on Node 22 and never see it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { loadMain } = await import('./launch.mjs');
const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));
