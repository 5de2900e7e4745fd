// The payload EventBridge Scheduler sends straight to the gc function (the sweep goes through the FIFO queue as a
// SweepMessage instead, so it is serialized with provisioning). `at` is the schedule's `<aws.scheduler.scheduled-time>`.
// A second schedule sends the same function a `RefreshPrices` tick every 12 hours (docs/deploy.md, Prices).
import { bodyParser, Reader } from './reader';

export interface GcTick {
  v: 1;
  cluster: string;
  kind: GcTickKind;
  at: string;
}

export type GcTickKind = 'GarbageCollect' | 'RefreshPrices';
const GC_TICK_KINDS: readonly GcTickKind[] = ['GarbageCollect', 'RefreshPrices'];

/** The Scheduler input template; the stack fills in the cluster. */
export function gcTickTemplate(cluster: string, kind: GcTickKind = 'GarbageCollect'): string {
  return JSON.stringify({ v: 1, cluster, kind, at: SCHEDULED_TIME });
}

/** The Scheduler context attributes the templates use; the Scheduler substitutes them on each invocation. */
const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';
const EXECUTION_ID = '<aws.scheduler.execution-id>';

/**
 * The sweep's Scheduler input template (a SweepMessage once the scheduler substitutes its attributes). The FIFO
 * queue deduplicates the tick by its content, and a scheduled time is predictable: anyone who may send to the queue
 * could send that body first and have the real tick dropped as its duplicate. The execution id, unique and unknown
 * before the invocation, makes every tick's content (and so its deduplication id) unguessable
 * (docs/architecture.md, "Trust boundaries").
 */
export function sweepTemplate(cluster: string): string {
  return JSON.stringify({ v: 1, cluster, kind: 'Sweep', at: SCHEDULED_TIME, execution: EXECUTION_ID });
}

export const parseGcTick = bodyParser('gc tick', validateGcTick);

/** Lambda hands the function the already-parsed payload, so this takes a value. */
export function validateGcTick(value: unknown, source = 'gc tick'): GcTick {
  const r = new Reader(source);
  const obj = r.object(value, '');
  if (obj) {
    if (obj.v !== 1) r.fail('v', `unsupported version ${JSON.stringify(obj.v) ?? 'undefined'} (expected 1)`);
    r.oneOf(obj, 'kind', '', GC_TICK_KINDS, 'kind');
  }
  const cluster = obj && r.string(obj, 'cluster', '');
  const at = obj && r.time(obj, 'at', '');
  r.done();
  const kind = obj?.kind === 'RefreshPrices' ? 'RefreshPrices' : 'GarbageCollect';
  return { v: 1, cluster: cluster as string, kind, at: at as string };
}
