// The disruption sweep's view of the cluster in a scenario: the control plane's reader, fed the pod activity the
// simulator saw on its watch stream.
import type { ControlPlaneDeps } from '../../controllers/deps';
import {
  type DisruptionInputExtra,
  type DisruptionView,
  readDisruptionInput as readInput,
} from '../../controllers/disruption-input';
import type { ClusterActivity } from './activity';

export type { DisruptionView };

export async function readDisruptionInput(
  deps: ControlPlaneDeps,
  activity: ClusterActivity,
  extra: Omit<DisruptionInputExtra, 'activity'> = {},
): Promise<DisruptionView> {
  return readInput(deps, { ...extra, activity });
}
