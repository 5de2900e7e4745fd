#!/usr/bin/env node
// The CLI is TypeScript; tsx compiles it on load so `npx karpless` works right after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
