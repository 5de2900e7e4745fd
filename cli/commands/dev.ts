// `karpless dev -f PATH`: runs the local pipeline (the real handlers against the simulated cluster and cloud,
// dynalite, in-memory SQS and the forwarder's batching) on manifests, printing a timeline and a summary.
import { LocalPipeline, loadPipelineObjects, type TimelineEntry } from '../../local';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import { runDevOnEndpoint } from './dev-endpoint';
import { formatLog } from './dev-log';
import { pendingLines, pendingReasons } from './dev-pending';
import type { CommandContext } from './index';

export interface DevOptions {
  file: string[];
  seed: string;
  until?: string;
  cluster: string;
  verbose?: boolean;
  awsEndpoint?: string;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** "90s", "10m", "1h30m", "500ms". */
export function parseDuration(text: string): number | undefined {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  return parts.reduce((ms, p) => ms + Number(p[1]) * (UNITS[p[2] as string] ?? 0), 0);
}

export async function runDev(ctx: CommandContext, opts: DevOptions): Promise<void> {
  const seed = Number(opts.seed);
  if (!Number.isInteger(seed) || seed < 0) return usage(ctx, `--seed: "${opts.seed}" is not a non-negative integer`);
  const until = opts.until === undefined ? undefined : parseDuration(opts.until);
  if (opts.until !== undefined && until === undefined) {
    return usage(ctx, `--until: "${opts.until}" is not a duration such as 90s, 10m or 1h`);
  }
  const loaded = await loadPipelineObjects(opts.file, opts.cluster);
  for (const w of loaded.warnings) ctx.io.err(`warning: ${w}`);
  if (loaded.pods === 0) return usage(ctx, `${opts.file.join(', ')}: no pods or workloads to provision for`);
  if (opts.awsEndpoint !== undefined) return runDevOnEndpoint(ctx, opts, loaded, until);
  const t0 = Date.parse('2026-11-21T21:00:00Z');
  const stamp = (at: number) => `[+${((at - t0) / 1000).toFixed(1).padStart(7)}s]`;
  const binds = new BindAggregator((line) => ctx.io.out(line), stamp);
  let now = () => t0;
  const pipeline = await LocalPipeline.create({
    cluster: opts.cluster,
    seed,
    objects: loaded.objects,
    logLevel: opts.verbose ? 'INFO' : 'WARN',
    onTimeline: (e) => binds.add(e),
    // Bindings held for aggregation go out first, and the record is stamped: one timeline, in the order it happened.
    onLog: (r) => {
      binds.flush();
      ctx.io.out(`${stamp(now())} ${formatLog(r)}`);
    },
  });
  now = () => pipeline.clock.now();
  ctx.io.out(`${stamp(t0)} ${loaded.pods} pod(s) pending in cluster ${opts.cluster}; forwarder started`);
  try {
    const limit = until ?? 30 * 60_000;
    const settled = async () => until === undefined && (await pipeline.sim.listPendingPods()).length === 0;
    await pipeline.runUntil(settled, limit);
    binds.flush();
    const audit = await pipeline.audit();
    const claims = await pipeline.store.list();
    const why = pendingLines(pendingReasons(await pipeline.sim.listPendingPods(), pipeline.sim.events));
    ctx.io.out(summary(pipeline, claims, audit, stamp(pipeline.clock.now()), why));
    const leaked = audit.orphanInstances.length + audit.duplicateLaunches.length + audit.claimsWithoutInstance.length;
    ctx.result.code = audit.pendingPods.length === 0 && leaked === 0 ? EXIT_OK : EXIT_FAILURE;
  } finally {
    await pipeline.stop();
  }
}

function usage(ctx: CommandContext, message: string): void {
  ctx.io.err(message);
  ctx.result.code = EXIT_USAGE;
}

/** Pod bindings arrive one per pod; print them as one line per node and moment. */
class BindAggregator {
  private pending: { at: number; node: string; pods: string[] } | undefined;

  constructor(
    private readonly out: (line: string) => void,
    private readonly stamp: (at: number) => string,
  ) {}

  add(e: TimelineEntry): void {
    if (e.kind === 'pod-bound' && e.detail) {
      if (this.pending && this.pending.at === e.at && this.pending.node === e.detail) {
        this.pending.pods.push(e.subject ?? '');
        return;
      }
      this.flush();
      this.pending = { at: e.at, node: e.detail, pods: [e.subject ?? ''] };
      return;
    }
    this.flush();
    this.out(`${this.stamp(e.at)} ${e.text}`);
  }

  flush(): void {
    if (!this.pending) return;
    const { at, node, pods } = this.pending;
    const names = pods.length <= 3 ? pods.join(', ') : `${pods.slice(0, 3).join(', ')}, …`;
    this.out(`${this.stamp(at)} ${pods.length} pod(s) bound to ${node}: ${names}`);
    this.pending = undefined;
  }
}

function summary(
  p: LocalPipeline,
  claims: NodeClaim[],
  audit: Awaited<ReturnType<LocalPipeline['audit']>>,
  at: string,
  why: string[],
): string {
  const byState = new Map<string, number>();
  for (const c of claims) byState.set(c.state, (byState.get(c.state) ?? 0) + 1);
  const cost = claims
    .filter((c) => c.state !== 'Terminated' && c.state !== 'Failed')
    .reduce((sum, c) => sum + (c.pricePerHour ?? 0), 0);
  const calls = new Map<string, { n: number; failed: number; ms: number }>();
  for (const i of p.invocations) {
    const c = calls.get(i.fn) ?? { n: 0, failed: 0, ms: 0 };
    calls.set(i.fn, { n: c.n + 1, failed: c.failed + (i.error ? 1 : 0), ms: c.ms + i.handlerMs });
  }
  const dlq = p.queues.eventsDlq.size + p.queues.interruptionDlq.size + p.queues.terminationDlq.size;
  const lines = [
    '',
    `${at} summary`,
    `  pods:        ${audit.boundPods} bound, ${audit.pendingPods.length} pending${audit.pendingPods.length ? ` (${audit.pendingPods.slice(0, 5).join(', ')}${audit.pendingPods.length > 5 ? ', …' : ''})` : ''}`,
    ...why,
    `  nodeclaims:  ${[...byState].map(([s, n]) => `${n} ${s}`).join(', ') || 'none'}`,
    `  instances:   ${audit.instances} running, ${audit.nodes} node(s), $${cost.toFixed(4)}/h`,
    `  handlers:    ${[...calls].map(([fn, c]) => `${fn} ×${c.n}${c.failed ? ` (${c.failed} failed)` : ''} ${(c.ms / c.n).toFixed(0)} ms avg`).join(', ')}`,
    `  queues:      ${dlq} message(s) in DLQs`,
    `  leaks:       ${audit.orphanInstances.length} orphan instance(s), ${audit.duplicateLaunches.length} duplicate launch(es), ${audit.claimsWithoutInstance.length} claim(s) without instance`,
  ];
  return lines.join('\n');
}
