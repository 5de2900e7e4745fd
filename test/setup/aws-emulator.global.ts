// Vitest global setup of the emulator-backed suites (the `aws-emulator` project in vitest.config.ts): one
// moto_server for the whole run on a free loopback port, handed to the test files as `inject('awsEndpoint')` and
// stopped afterwards. Files isolate themselves by account (test/aws-emulator/emulator.ts), not by server.
// KARPLESS_AWS_ENDPOINT points the suites at a server that is already running instead.
import type { TestProject } from 'vitest/node';
import { cacheDir, locateMotoServer, type RunningMoto, startMotoServer, systemHost } from './moto-server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** http://127.0.0.1:PORT of the moto_server this run started (or KARPLESS_AWS_ENDPOINT). */
    awsEndpoint: string;
  }
}

let running: RunningMoto | undefined;

export async function setup(project: TestProject): Promise<void> {
  const given = process.env.KARPLESS_AWS_ENDPOINT;
  if (given) {
    project.provide('awsEndpoint', given);
    return;
  }
  const command = locateMotoServer(systemHost(), cacheDir());
  running = await startMotoServer(command);
  project.provide('awsEndpoint', running.endpoint);
}

export async function teardown(): Promise<void> {
  await running?.stop();
  running = undefined;
}
