// Garbage collection, on a schedule: the safety net that makes a Lambda killed mid-launch leak nothing.
// - An instance tagged for this cluster that no live claim owns, older than the grace period, is terminated. The
//   grace covers a launch whose instance exists but whose claim does not yet record it: such an instance carries
//   its claim's name in a tag, and a Pending claim of that name keeps it. A termination refused is logged and
//   counted, and the collection goes on.
// - Tags prove nothing (anyone may set them): an orphan is terminated only with proof that Karpless launched it, a
//   claim record naming it or the cloud's launchProof; one without is logged, counted and left running
//   (docs/aws.md ("Garbage collection")).
// - A claim whose instance is gone is failed and sent through termination (which deletes its Node) and its pods
//   re-planned.
// - The claims of a NodePool that was deleted are terminated, as Karpenter's owner references cascade
//   (nodepool-deletion.ts).
// - Stale launch templates are the cloud adapter's business; it is asked when it offers that.
import { LIVE_STATES, type NodeClaim } from '../api/nodeclaim';
import { ConflictError } from '../errors';
import type { CloudInstance, InstanceProvider, LaunchTemplateCollector } from '../ports';
import type { InstanceDeps } from './deps';
import { queueTermination, requestReplan } from './messages';
import { terminateClaimsOfDeletedNodePools } from './nodepool-deletion';
import { message } from './snapshot';
import { startTermination } from './termination';

export const TagNodeClaim = 'karpenter.sh/nodeclaim';

const collectsLaunchTemplates = (cloud: InstanceProvider): cloud is InstanceProvider & LaunchTemplateCollector =>
  typeof (cloud as Partial<LaunchTemplateCollector>).deleteStaleLaunchTemplates === 'function';

export interface GcResult {
  terminatedInstances: string[];
  failedClaims: string[];
  /** Claims whose NodePool was deleted: their termination started. */
  nodePoolDeleted: string[];
  launchTemplatesDeleted?: number;
}

export async function collectGarbage(deps: InstanceDeps): Promise<GcResult> {
  const now = deps.clock.now();
  const [instances, claims] = await Promise.all([deps.cloud.list(), deps.store.list()]);
  const result: GcResult = { terminatedInstances: [], failedClaims: [], nodePoolDeleted: [] };
  let failedTerminations = 0;
  let unproven = 0;
  // An instance a claim recorded was launched by Karpless, whatever became of the claim since.
  const recorded = new Set(claims.flatMap((c) => (c.instanceId ? [c.instanceId] : [])));

  const live = claims.filter((c) => LIVE_STATES.includes(c.state));
  const ownedIds = new Set(live.flatMap((c) => (c.instanceId ? [c.instanceId] : [])));
  const failedWithInstance = new Map(
    claims.filter((c) => c.state === 'Failed' && c.instanceId).map((c) => [c.instanceId as string, c]),
  );

  for (const instance of instances) {
    if (instance.state === 'terminated' || instance.state === 'shutting-down') continue;
    if (ownedIds.has(instance.instanceId)) continue;
    const failed = failedWithInstance.get(instance.instanceId);
    if (failed) {
      // Termination deletes the Node as well as the instance.
      await queueTermination(deps, failed.name);
      continue;
    }
    const claimTag = instance.tags[TagNodeClaim];
    const pendingOwner = claimTag ? live.find((c) => c.name === claimTag && !c.instanceId) : undefined;
    if (pendingOwner) continue;
    if (now - Date.parse(instance.launchedAt) < deps.config.orphanGraceMs) continue;
    const outcome = await terminateOrphan(deps, instance, recorded.has(instance.instanceId));
    if (outcome === 'terminated') result.terminatedInstances.push(instance.instanceId);
    else if (outcome === 'unproven') unproven++;
    else failedTerminations++;
  }

  const running = new Set(instances.filter((i) => i.state !== 'terminated').map((i) => i.instanceId));
  for (const claim of live) {
    if (!claim.instanceId || running.has(claim.instanceId) || claim.state === 'Draining') continue;
    // list() may lag a fresh launch: confirm before failing anything.
    const instance = await deps.cloud.get(claim.instanceId);
    if (instance && instance.state !== 'terminated' && instance.state !== 'shutting-down') continue;
    if (await failGone(deps, claim)) result.failedClaims.push(claim.name);
  }

  // After the gone instances, so a claim whose instance vanished ends as GarbageCollected, not NodePoolDeleted.
  try {
    result.nodePoolDeleted = await terminateClaimsOfDeletedNodePools(
      deps,
      live.filter((c) => !result.failedClaims.includes(c.name)),
    );
  } catch (err) {
    // The API server unreachable: the next tick tries again; the rest of the collection still runs.
    deps.log.warn('NodePool deletion check failed', { error: message(err) });
  }

  if (collectsLaunchTemplates(deps.cloud)) {
    try {
      const deleted = await deps.cloud.deleteStaleLaunchTemplates();
      if (typeof deleted === 'number') result.launchTemplatesDeleted = deleted;
    } catch (err) {
      deps.log.warn('launch template cleanup failed', { error: message(err) });
    }
  }
  deps.metric('OrphanInstancesTerminated', result.terminatedInstances.length, 'Count');
  deps.metric('OrphanTerminationsFailed', failedTerminations, 'Count');
  deps.metric('OrphansUnproven', unproven, 'Count');
  deps.metric('ClaimsWithInstanceGone', result.failedClaims.length, 'Count');
  return result;
}

/** Terminates an orphan that carries proof of Karpless's launch (`recorded`: a claim record names it); leaves one
 * with the tags alone, which anyone holding ec2:CreateTags can set, running. */
async function terminateOrphan(
  deps: InstanceDeps,
  instance: CloudInstance,
  recorded: boolean,
): Promise<'terminated' | 'unproven' | 'failed'> {
  const { instanceId } = instance;
  const nodeClaim = instance.tags[TagNodeClaim];
  if (!instance.launchProof && !recorded) {
    deps.log.warn('orphan instance left alone: tagged for the cluster, no proof Karpless launched it', {
      instanceId,
      nodeClaim,
    });
    return 'unproven';
  }
  deps.log.warn('terminating orphan instance', {
    instanceId,
    nodeClaim,
    proof: instance.launchProof ?? 'claim record',
  });
  try {
    await deps.cloud.delete(instanceId);
    return 'terminated';
  } catch (err) {
    // Anyone may tag an instance for this cluster, and EC2 refuses to terminate one the GC role may not touch: that
    // refusal must not stop the real orphans after it, nor the rest of the collection.
    deps.log.error('orphan instance termination failed', { instanceId, error: message(err) });
    return 'failed';
  }
}

async function failGone(deps: InstanceDeps, claim: NodeClaim): Promise<boolean> {
  const detail = `instance ${claim.instanceId} no longer exists`;
  try {
    if (claim.state === 'Initialized') {
      // An initialized claim cannot fail; it ends through termination, with nothing left to wait for.
      const started = await startTermination(deps, claim, {
        cause: 'GarbageCollected',
        detail,
        deadline: new Date(deps.clock.now()).toISOString(),
      });
      if (!started) return false;
    } else {
      await deps.store.transition(claim, 'Failed', { failure: { reason: 'InstanceTerminated', message: detail } });
      await queueTermination(deps, claim.name);
    }
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
  deps.log.warn('claim ended: its instance is gone', { nodeClaim: claim.name, instanceId: claim.instanceId });
  await requestReplan(deps, `${claim.name}: instance gone`, claim.nominatedPods);
  return true;
}
