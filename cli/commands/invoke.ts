// `karpless invoke FUNCTION EVENT`: runs one handler once, locally, against the simulator (seeded with the examples
// or -f manifests, dynalite as its store), with the event delivered as Lambda would: an SQS record of the function's
// queue, or the Scheduler's payload for gc. Prints the handler's log lines and its response.
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENTS_DIR, FIXTURES, sqsEvent } from '../../events';
import { INVOKABLE_FUNCTIONS, type InvokableFunction, LocalPipeline, loadPipelineObjects } from '../../local';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import type { CommandContext } from './index';

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'cluster');

export interface InvokeOptions {
  file?: string[];
  seed: string;
  settle?: boolean;
}

export async function runInvoke(
  ctx: CommandContext,
  fn: string,
  eventPath: string,
  opts: InvokeOptions,
): Promise<void> {
  if (!(INVOKABLE_FUNCTIONS as readonly string[]).includes(fn)) {
    ctx.io.err(`FUNCTION: "${fn}" is not one of ${INVOKABLE_FUNCTIONS.join(', ')}`);
    ctx.result.code = EXIT_USAGE;
    return;
  }
  const seed = Number(opts.seed);
  if (!Number.isInteger(seed) || seed < 0) {
    ctx.io.err(`--seed: "${opts.seed}" is not a non-negative integer`);
    ctx.result.code = EXIT_USAGE;
    return;
  }
  const path = await locate(eventPath);
  if (!path) {
    ctx.io.err(`${eventPath}: no such file (nor in ${EVENTS_DIR})`);
    ctx.result.code = EXIT_USAGE;
    return;
  }
  const body = await readFile(path, 'utf8');
  const name = fn as InvokableFunction;
  const cluster = clusterOf(body) ?? 'demo';
  const loaded = await loadPipelineObjects(opts.file ?? [EXAMPLES], cluster);
  for (const w of loaded.warnings) ctx.io.err(`warning: ${w}`);
  const lines: string[] = [];
  const pipeline = await LocalPipeline.create({
    cluster,
    seed,
    objects: loaded.objects,
    logLevel: 'DEBUG',
    onLog: (r) => lines.push(JSON.stringify(r)),
  });
  // Powertools' JSON lines are captured while the pipeline runs, so everything is printed after it stops.
  const report: string[] = [];
  let code = EXIT_OK;
  try {
    if (opts.settle) {
      await pipeline.runUntil(async () => (await pipeline.sim.listPendingPods()).length === 0, 30 * 60_000);
      lines.length = 0;
      report.push(`# simulator settled: ${(await pipeline.sim.listPods()).length} pod(s) bound`);
    }
    const event = deliver(pipeline, name, basename(path), body);
    const handler = pipeline.handlerFor(name);
    let response: unknown;
    let failed: unknown;
    try {
      response = await handler(event, pipeline.context(name));
    } catch (error) {
      failed = error;
    }
    report.push(`# logs (${lines.length})`, ...lines);
    if (failed !== undefined) {
      report.push('# error', failed instanceof Error ? `${failed.name}: ${failed.message}` : String(failed));
      code = EXIT_FAILURE;
    } else {
      report.push('# response', JSON.stringify(response ?? null, null, 2));
      const queued = (['events', 'interruption', 'termination'] as const)
        .map((q) => `${q}: ${pipeline.queues[q].size}`)
        .join(', ');
      report.push(`# queued follow-ups: ${queued}; cloud creates: ${pipeline.cloud.creates.length}`);
    }
  } finally {
    await pipeline.stop();
  }
  for (const line of report) ctx.io.out(line);
  ctx.result.code = code;
}

/** The event as Lambda delivers it: the Scheduler's parsed payload for gc, else one SQS record of the function's
 * queue (the fixture catalogue's delivery when the file is in it). */
function deliver(p: LocalPipeline, fn: InvokableFunction, file: string, body: string): unknown {
  if (fn === 'gc') {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
    }
  }
  const known = FIXTURES.find((f) => f.file === file);
  const queue =
    fn === 'interruption' || known?.delivery === 'interruption-queue'
      ? p.queues.interruption
      : fn === 'termination' || known?.delivery === 'termination-queue'
        ? p.queues.termination
        : p.queues.events;
  return sqsEvent([body], { queueArn: queue.arn, ...(queue.fifo ? { groupId: p.cluster } : {}) });
}

async function locate(path: string): Promise<string | undefined> {
  for (const candidate of [resolve(path), join(EVENTS_DIR, basename(path))]) {
    try {
      await readFile(candidate);
      return candidate;
    } catch {
      // try the next
    }
  }
  return undefined;
}

function clusterOf(body: string): string | undefined {
  try {
    const v = JSON.parse(body) as { cluster?: unknown };
    return typeof v.cluster === 'string' && v.cluster ? v.cluster : undefined;
  } catch {
    return undefined;
  }
}

const _collect = (value: string, previous: string[] = []): string[] => [...previous, value];
