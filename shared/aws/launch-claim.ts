// One claim's launch, from Pending to Launched with its instance recorded, using only the ports. The claim is
// already in the store (written before the launch), so a Lambda that dies mid-launch leaves a Pending claim whose
// replay finds the same instance through the claim uid.
import type { NodeClaim } from '../api/nodeclaim';
import { launchedFields } from '../controllers/launch';
import { InsufficientCapacityError, LaunchError } from '../errors';
import type { Clock, CloudInstance, CloudProvider, LaunchRequest, NodeClaimStore } from '../ports';
import { withConflictRetry } from './dynamo/conflict-retry';
import { recordInsufficientCapacity } from './ice';

export type LaunchOutcome =
  | { kind: 'launched'; claim: NodeClaim; instance: CloudInstance }
  | { kind: 'insufficient-capacity'; error: InsufficientCapacityError }
  | { kind: 'failed'; claim?: NodeClaim; error: LaunchError }
  | { kind: 'gone' };

export async function launchClaim(
  deps: { cloud: CloudProvider; store: NodeClaimStore; clock: Clock },
  request: LaunchRequest,
): Promise<LaunchOutcome> {
  let instance: CloudInstance;
  try {
    instance = await deps.cloud.create(request);
  } catch (err) {
    if (err instanceof InsufficientCapacityError) {
      await recordInsufficientCapacity(deps.store, err, deps.clock.now());
      // The claim goes away so its pods are planned again, around the offerings just cached.
      await withConflictRetry(deps.store, request.claim.name, (c) => deps.store.delete(c));
      return { kind: 'insufficient-capacity', error: err };
    }
    if (err instanceof LaunchError && !err.retryable) {
      const failed = await withConflictRetry(deps.store, request.claim.name, (c) =>
        c.state === 'Pending'
          ? deps.store.transition(c, 'Failed', {
              failure: { reason: `LaunchFailed/${err.kind}`, message: err.message },
            })
          : Promise.resolve(c),
      );
      return failed ? { kind: 'failed', claim: failed, error: err } : { kind: 'gone' };
    }
    throw err;
  }
  const patch = launchedFields(instance);
  const claim = await withConflictRetry(deps.store, request.claim.name, (c) =>
    // A replay may find the claim already Launched by an earlier attempt: record nothing twice.
    c.state === 'Pending' ? deps.store.transition(c, 'Launched', patch) : Promise.resolve(c),
  );
  // The claim vanished while launching (deleted by another writer): the garbage collector reclaims the instance.
  return claim ? { kind: 'launched', claim, instance } : { kind: 'gone' };
}
