// The local pipeline the pipeline benchmarks drive: one NodePool and the bed's EC2NodeClass, quiet logs, and the
// lifecycle timers (sweep, GC) an hour apart, since they are not what is measured.
import { LocalPipeline, type LocalPipelineOptions } from '../local';
import type { NodePool } from '../shared/api/karpenter';
import { testNodeClass } from '../testkit/bed';

export function benchPipeline(
  pool: NodePool,
  seed: number,
  extra: Pick<LocalPipelineOptions, 'onMetrics'> = {},
): Promise<LocalPipeline> {
  return LocalPipeline.create({
    cluster: 'bench',
    seed,
    objects: [pool, testNodeClass()],
    logLevel: 'WARN',
    sweepEveryMs: 3_600_000,
    gcEveryMs: 3_600_000,
    ...extra,
  });
}
