// Kubernetes Events are for people; failing to write one must never fail the decision it describes.
import type { ClusterEvent } from '../ports';
import type { InstanceDeps } from './deps';
import { message } from './snapshot';

export async function emitEvent(deps: Pick<InstanceDeps, 'kube' | 'log'>, event: ClusterEvent): Promise<void> {
  try {
    await deps.kube.recordEvent(event);
  } catch (err) {
    deps.log.warn('event not recorded', { reason: event.reason, involved: event.involved.name, error: message(err) });
  }
}
