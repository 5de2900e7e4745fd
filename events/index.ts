// The fixture catalogue: one JSON file per input kind, what it is, which function receives it and how. Tests load
// every entry; `karpless invoke FUNCTION events/X.json` uses `fixtureFor` to wrap a body the way Lambda delivers it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FunctionName } from '../stacks/functions';

export const EVENTS_DIR = dirname(fileURLToPath(import.meta.url));

/** How the body reaches the function: as an SQS record of a queue, or as the Scheduler's direct payload. */
export type Delivery = 'cluster-queue' | 'interruption-queue' | 'termination-queue' | 'scheduler';

export interface Fixture {
  file: string;
  /** Which validator reads it. */
  input: 'control' | 'interruption' | 'gc';
  delivery: Delivery;
  function: FunctionName;
  /** What the validator must make of it. */
  expect: 'valid' | 'ignored' | 'invalid';
}

const control = (file: string, fn: FunctionName, expect: Fixture['expect'] = 'valid'): Fixture => ({
  file,
  input: 'control',
  delivery: fn === 'termination' ? 'termination-queue' : 'cluster-queue',
  function: fn,
  expect,
});
const interruption = (file: string, expect: Fixture['expect'] = 'valid'): Fixture => ({
  file,
  input: 'interruption',
  delivery: 'interruption-queue',
  function: 'interruption',
  expect,
});

export const FIXTURES: readonly Fixture[] = [
  control('pods-pending.json', 'provisioner'),
  control('node-changed.json', 'provisioner'),
  control('nodepool-changed.json', 'provisioner'),
  control('nodeclaim-deleted.json', 'provisioner'),
  control('sweep.json', 'provisioner'),
  // Scheduled onto the termination queue with a delay; the termination function relays it to the cluster queue.
  control('disruption-due.json', 'provisioner'),
  control('terminate.json', 'termination'),
  { file: 'gc-tick.json', input: 'gc', delivery: 'scheduler', function: 'gc', expect: 'valid' },
  interruption('spot-interruption.json'),
  interruption('capacity-reservation-interruption.json'),
  interruption('rebalance-recommendation.json'),
  interruption('state-change-pending.json'),
  interruption('state-change-running.json'),
  interruption('state-change-stopping.json'),
  interruption('state-change-stopped.json'),
  interruption('state-change-shutting-down.json'),
  interruption('state-change-terminated.json'),
  interruption('health-scheduled-change.json'),
  interruption('health-other-service.json', 'ignored'),
  interruption('ec2-unsupported-detail-type.json', 'ignored'),
  control('malformed-bad-json.txt', 'provisioner', 'invalid'),
  control('malformed-wrong-version.json', 'provisioner', 'invalid'),
  control('malformed-missing-fields.json', 'provisioner', 'invalid'),
  control('malformed-unknown-kind.json', 'provisioner', 'invalid'),
  control('malformed-bad-ref.json', 'provisioner', 'invalid'),
  control('malformed-nodeclaim-deleted-no-name.json', 'provisioner', 'invalid'),
  interruption('malformed-spot-missing-instance-id.json', 'invalid'),
  interruption('malformed-state-change-bad-state.json', 'invalid'),
  interruption('malformed-eventbridge-version.json', 'invalid'),
  interruption('malformed-health-no-entities.json', 'invalid'),
];

/** The raw body of a fixture, exactly as the queue or scheduler delivers it. */
export function readFixture(file: string): string {
  return readFileSync(join(EVENTS_DIR, file), 'utf8');
}

export function fixture(file: string): Fixture {
  const found = FIXTURES.find((f) => f.file === file);
  if (!found) throw new Error(`events/${file}: not in the fixture catalogue (events/index.ts)`);
  return found;
}

/** Every fixture file on disk, for the test that keeps the catalogue complete. */
export function fixtureFiles(): string[] {
  return readdirSync(EVENTS_DIR).filter((f) => f.endsWith('.json') || f.endsWith('.txt'));
}

export { type SqsEventOptions, sqsEvent, sqsRecord } from './sqs';
