// A planned NodeClaim (the solver's PlannedNodeClaim) made into the Pending claim the store keeps: provisioning and
// disruption's replacements write their claims from here, so both record the same fields and the hashes drift
// compares.

import { claimTemplateFields } from '../api/claim-template';
import type { claimHashes } from '../api/hash';
import { newUid } from '../api/ids';
import type { NodePool } from '../api/karpenter';
import type { NodeClaim } from '../api/nodeclaim';
import { podRef } from '../api/pods';
import type { PlannedNodeClaim } from '../scheduling';
import type { ControlPlaneDeps } from './deps';

export interface PlannedClaimFields {
  name: string;
  /** ISO time the claim is written, its createdAt and Pending time. */
  createdAt: string;
  /** The claim's NodePool, for its template fields. */
  nodePool: NodePool | undefined;
  /** The template hashes of its NodePool and EC2NodeClass. */
  hashes: ReturnType<typeof claimHashes>;
}

/** The Pending claim for a planned one, with a fresh uid. */
export function claimFromPlan(
  deps: ControlPlaneDeps,
  planned: PlannedNodeClaim,
  fields: PlannedClaimFields,
): NodeClaim {
  return {
    name: fields.name,
    uid: newUid(deps),
    cluster: deps.cluster,
    nodePool: planned.nodePool,
    nodeClass: planned.nodeClass,
    state: 'Pending',
    version: 1,
    requirements: planned.requirements,
    instanceTypeOptions: planned.instanceTypeOptions.map((t) => t.name),
    labels: planned.labels,
    taints: planned.taints,
    startupTaints: planned.startupTaints,
    requests: planned.requests,
    nominatedPods: planned.pods.map(podRef),
    createdAt: fields.createdAt,
    stateTimes: { Pending: fields.createdAt },
    ...fields.hashes,
    ...claimTemplateFields(fields.nodePool, planned.minValuesRelaxed),
  };
}
