// The provisioner's nominations and the pods it could not place, read from the events it recorded since the last
// instant and written to the scenario's timeline.
import type { NodeClaimStore } from '../../ports';
import type { ClusterActivity } from './activity';
import type { Recorder } from './recorder';

export async function recordNominations(
  activity: ClusterActivity,
  store: NodeClaimStore,
  recorder: Recorder,
  now: number,
): Promise<void> {
  const nominated = new Map<string, number>();
  const unschedulable: { pod: string; reason: string }[] = [];
  for (const e of activity.newEvents()) {
    if (e.reason === 'FailedScheduling') {
      unschedulable.push({ pod: `${e.involved.namespace}/${e.involved.name}`, reason: e.message });
      continue;
    }
    if (e.reason !== 'Nominated') continue;
    const target = /on: (\S+)$/.exec(e.message)?.[1] ?? '?';
    nominated.set(target, (nominated.get(target) ?? 0) + 1);
  }
  const claims = nominated.size ? await store.list() : [];
  const claimOfNode = (node: string): string => claims.find((c) => c.nodeName === node)?.name ?? node;
  for (const [target, n] of nominated) {
    const claim = target.startsWith('node/') ? claimOfNode(target.slice(5)) : target.replace(/^nodeclaim\//, '');
    recorder.add(now, 'Nominated', claim, 'Provisioning', `${n} pod(s) nominated to ${target}`);
  }
  if (unschedulable.length > 0) {
    const first = unschedulable[0] as { pod: string; reason: string };
    recorder.add(
      now,
      'Unschedulable',
      '',
      'FailedScheduling',
      `${unschedulable.length} pod(s), e.g. ${first.pod}: ${first.reason}`,
    );
  }
}
