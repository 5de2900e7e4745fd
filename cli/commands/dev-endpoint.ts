// `karpless dev -f PATH --aws-endpoint URL`: the local pipeline's handlers with real SDK clients against an
// AWS-compatible endpoint (docs/aws.md "Trying the control plane against an AWS-compatible endpoint"); the cluster
// stays the simulated Kubernetes API. Prints what happened and a summary naming every instance launched.
import type { PipelineObjects } from '../../local';
import { AwsEndpointPipeline } from '../../local/aws-endpoint/pipeline';
import type { NodeClaim } from '../../shared/api/nodeclaim';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../io';
import type { DevOptions } from './dev';
import { formatLog } from './dev-log';
import { pendingLines, pendingReasons } from './dev-pending';
import { WaitProgress } from './dev-progress';
import type { CommandContext } from './index';

export async function runDevOnEndpoint(
  ctx: CommandContext,
  opts: DevOptions,
  loaded: PipelineObjects,
  until: number | undefined,
): Promise<void> {
  let pipeline: AwsEndpointPipeline;
  const started = Date.now();
  const stamp = () => `[+${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s]`;
  try {
    pipeline = await AwsEndpointPipeline.create({
      endpoint: opts.awsEndpoint as string,
      cluster: opts.cluster,
      objects: loaded.objects,
      logLevel: opts.verbose ? 'INFO' : 'WARN',
      onEvent: (line) => ctx.io.out(`${stamp()} ${line}`),
      // Stamped like the events, so log records and events read as one timeline in the order they happened.
      onLog: (r) => ctx.io.out(`${stamp()} ${formatLog(r)}`),
    });
  } catch (err) {
    ctx.io.err(err instanceof Error ? err.message : String(err));
    ctx.result.code = err instanceof Error && err.message.startsWith('--aws-endpoint') ? EXIT_USAGE : EXIT_FAILURE;
    return;
  }
  ctx.io.out(
    `${stamp()} ${loaded.pods} pod(s) pending in cluster ${opts.cluster} on ${opts.awsEndpoint} (${pipeline.clients.region}); forwarder started`,
  );
  try {
    const limit = until ?? 30 * 60_000;
    const start = pipeline.clock.now();
    const flag = until === undefined ? 'the limit of a run that waits for every pod' : '--until';
    const progress = new WaitProgress((line) => ctx.io.err(`${stamp()} ${line}`), { ms: limit, flag });
    const settled = async () => {
      const pending = await pipeline.sim.listPendingPods();
      progress.step(pipeline.clock.now() - start, pending);
      return until === undefined && pending.length === 0;
    };
    progress.startHeartbeat();
    await pipeline.runUntil(settled, limit).finally(() => progress.stopHeartbeat());
    const pending = await pipeline.sim.listPendingPods();
    const claims = await pipeline.store.list();
    const reasons = pendingReasons(pending, pipeline.sim.events);
    ctx.io.out(
      summary(
        pipeline,
        claims,
        pending.map((p) => p.metadata.name),
        pendingLines(reasons),
      ),
    );
    ctx.result.code = pending.length === 0 ? EXIT_OK : EXIT_FAILURE;
  } finally {
    pipeline.stop();
  }
}

function summary(p: AwsEndpointPipeline, claims: NodeClaim[], pending: string[], why: string[]): string {
  const byState = new Map<string, number>();
  for (const c of claims) byState.set(c.state, (byState.get(c.state) ?? 0) + 1);
  const launched = p.cloud.launched;
  const lines = [
    '',
    'summary',
    `  pods:        ${p.sim.allPods().length - pending.length} bound, ${pending.length} pending${pending.length ? ` (${pending.slice(0, 5).join(', ')}${pending.length > 5 ? ', …' : ''})` : ''}`,
    ...why,
    `  nodeclaims:  ${[...byState].map(([s, n]) => `${n} ${s}`).join(', ') || 'none'} (table ${p.resources.tableName})`,
    `  read back:   ${p.readBack.joined.length} node(s) of an earlier run still running in EC2`,
    `  launched:    ${launched.length} instance(s) this run`,
    ...launched.map(
      (i) =>
        `    ${i.instanceId}  ${i.instanceType}  ${i.capacityType}  ${i.zone}  ${i.subnetId ?? ''}  nodeclaim ${i.tags['karpenter.sh/nodeclaim'] ?? ''}`,
    ),
  ];
  return lines.join('\n');
}
