// The end-to-end tests' fixtures: a pipeline over a small cluster, and the questions the tests ask of its end state.
import { readFixture } from '../../events';
import { LocalPipeline, type LocalPipelineOptions } from '../../local';
import { LabelArch, LabelCapacityType, LabelInstanceType, LabelOS, LabelZone } from '../../shared/api/labels';
import { makePod, testNodeClass, testNodePool } from '../../testkit/bed';

export const CLUSTER = 'demo';

export function spotPool() {
  return testNodePool('default', [
    { key: LabelOS, operator: 'In', values: ['linux'] },
    { key: LabelArch, operator: 'In', values: ['amd64'] },
    { key: LabelInstanceType, operator: 'In', values: ['m5.large', 'm5.xlarge', 'c5.large', 'c5.xlarge'] },
    { key: LabelZone, operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
    { key: LabelCapacityType, operator: 'In', values: ['spot', 'on-demand'] },
  ]);
}

export function pods(n: number, prefix = 'web', cpu = '500m') {
  return Array.from({ length: n }, (_, i) => makePod(`${prefix}-${i}`, { cpu, memory: '512Mi' }));
}

export async function pipeline(options: Partial<LocalPipelineOptions> & { pods?: number } = {}) {
  const { pods: n = 6, objects, ...rest } = options;
  return LocalPipeline.create({
    cluster: CLUSTER,
    seed: 3,
    logLevel: 'WARN',
    objects: objects ?? [testNodePool(), testNodeClass(), ...pods(n)],
    ...rest,
  });
}

/** True once every pod is bound and no joined node waits to be initialized (the pipeline's usual "done").
 * kube-scheduler binds a nominated pod as its node turns Ready, before the lifecycle has seen that node change and
 * initialized the claim, so bound pods alone do not mean the pipeline has settled. */
export const allBound = (p: LocalPipeline) => async () =>
  (await p.sim.listPendingPods()).length === 0 && (await p.store.list({ states: ['Registered'] })).length === 0;

/** An EC2 Spot Instance Interruption Warning for one instance, from the events/ fixture. */
export function spotWarning(instanceId: string, at: string) {
  const event = JSON.parse(readFixture('spot-interruption.json')) as Record<string, unknown>;
  return {
    ...event,
    time: at,
    resources: [`arn:aws:ec2:us-west-2:111122223333:instance/${instanceId}`],
    detail: { 'instance-id': instanceId, 'instance-action': 'terminate' },
  };
}
