// Applying a scenario's steps: one handler per step kind, each given the run's StepContext (step-context.ts). A step
// that fails for any reason but validation is reported with the file and path it was written at.
import { DEFAULT_NODEPOOL_NAME } from '../../api/default-nodepool';
import { handleControlMessage, provision } from '../../controllers';
import { ValidationError } from '../../errors';
import type { ClusterMessage } from '../../messages';
import { addReservation } from '../reservations';
import { applyCloudStep } from './cloud-steps';
import { interruptStep } from './interrupt-step';
import { scaleNodePool } from './nodepool-scale';
import { applyObjectStep } from './object-steps';
import { patchStep } from './patch-step';
import { applyReservationStep } from './reservation-step';
import { applySeed } from './seed';
import type { StepContext } from './step-context';
import type { ScenarioStep, StepAction } from './types';

export async function applyStep(ctx: StepContext, step: ScenarioStep): Promise<void> {
  try {
    await applyAction(ctx, step.action);
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw new ValidationError([
      `${ctx.scenarioFile}: ${step.path}: ${err instanceof Error ? err.message : String(err)}`,
    ]);
  }
}

async function applyAction(ctx: StepContext, action: StepAction): Promise<void> {
  const now = ctx.world.clock.now();
  const { cloud, cluster, store } = ctx.world;
  ctx.objectsVersion++;
  switch (action.type) {
    case 'apply':
      return applyManifests(ctx, action, now);
    case 'scale':
      ctx.workloads.scale(action.target, action.replicas);
      return;
    case 'scaleNodePool':
      return scaleNodePoolStep(ctx, action, now);
    case 'delete':
      return deleteStep(ctx, action, now);
    case 'patch':
      return patchStep(ctx, action, now);
    case 'annotate':
    case 'label':
    case 'taint':
    case 'complete':
    case 'nodeCondition':
      if ((await applyObjectStep(cluster, action, new Date(now).toISOString())) === 0) {
        ctx.warnings.push(`${ctx.recorder.offset(now)}: ${action.type} matched no ${action.target.kind}`);
      }
      return;
    case 'seed':
      return applySeed(
        { cluster, cloud, store, clusterName: ctx.clusterName, now, instanceTypesFor: ctx.instanceTypesFor },
        action,
      );
    case 'publishAmi':
    case 'retag':
    case 'kubernetesVersion':
      applyCloudStep(cloud.account, action);
      return;
    case 'capacityReservation':
      applyReservationStep(cloud, action, now);
      return;
    case 'interrupt':
      return interruptStep(ctx, action, now);
  }
}

type ActionOf<T extends StepAction['type']> = Extract<StepAction, { type: T }>;

async function applyManifests(ctx: StepContext, action: ActionOf<'apply'>, now: number): Promise<void> {
  const { cloud, cluster } = ctx.world;
  ctx.workloads.apply(action.set);
  if (action.set.nodePools.length + action.set.nodeClasses.length + action.set.nodeOverlays.length > 0) {
    ctx.batch.notePoolsChanged(now);
  }
  for (const r of action.set.capacityReservations) addReservation(cloud, r, now);
  ctx.pdbs = await cluster.listPodDisruptionBudgets();
  if ((await cluster.listNodePools()).length === 0) {
    const fallback = ctx.engine.defaultNodePool();
    cluster.upsert(fallback.nodeClass);
    cluster.upsert(fallback.nodePool);
    ctx.warnings.push(`no NodePool applied: using the embedded default NodePool "${DEFAULT_NODEPOOL_NAME}"`);
  }
}

async function scaleNodePoolStep(ctx: StepContext, action: ActionOf<'scaleNodePool'>, now: number): Promise<void> {
  await scaleNodePool(ctx.world.cluster, action.name, action.replicas);
  // The forwarder's NodePoolChanged hint: the provisioner adds or removes the static pool's nodes at once.
  await provision(ctx.world.deps, { trigger: 'NodePoolChanged', triggeredAt: new Date(now).toISOString() });
}

async function deleteStep(ctx: StepContext, action: ActionOf<'delete'>, now: number): Promise<void> {
  const { cluster, deps } = ctx.world;
  for (const t of action.targets) {
    // `kubectl delete nodeoverlay`: the next read of the cluster prices without it (docs/api.md, NodeOverlay).
    if (t.kind === 'NodeOverlay') {
      if (!cluster.deleteNodeOverlay(t.name)) throw new Error(`NodeOverlay ${t.name} not found`);
      ctx.batch.notePoolsChanged(now);
    } else if (t.kind === 'NodeClaim') {
      // `kubectl delete nodeclaim`: the deletion mark, then the forwarder's NodeClaimDeleted, which starts the
      // termination at once through the use-case the provisioner runs (docs/kubernetes.md, NodeClaim objects).
      if (!cluster.requestNodeClaimObjectDeletion(t.name)) throw new Error(`NodeClaim ${t.name} not found`);
      await handleControlMessage(deps, {
        v: 1,
        cluster: ctx.clusterName,
        kind: 'NodeClaimDeleted',
        at: new Date(now).toISOString(),
        refs: [{ kind: 'NodeClaim', name: t.name }],
      });
    } else if (t.kind === 'NodePool') {
      if (!cluster.deleteNodePool(t.name)) throw new Error(`NodePool ${t.name} not found`);
      // The forwarder's NodePoolChanged hint: the pool's nodes start terminating at once (docs/disruption.md,
      // Deleting a NodePool).
      const hint: ClusterMessage = {
        v: 1,
        cluster: ctx.clusterName,
        kind: 'NodePoolChanged',
        at: new Date(now).toISOString(),
        refs: [],
      };
      await handleControlMessage(deps, hint);
    } else ctx.workloads.delete(t);
  }
}
