// The objects a cluster dump adds to plain manifests (`kubectl get nodes,pods,nodeclaims,csinodes,runtimeclasses
// -A -o yaml`): Karpenter's NodeClaims, CSINodes and RuntimeClasses, their validation, and what the engine takes of a
// NodeClaim. docs/simulate-dump.md says how `simulate` treats each.
import {
  expectArray,
  expectEnum,
  expectInt,
  expectLabels,
  expectObject,
  expectQuantityMap,
  expectString,
  type Obj,
} from './check';
import { checkRequirements, checkTaints, checkTolerations } from './check-scheduling';
import type { NodeSelectorRequirementWithMinValues } from './karpenter';
import type { ObjectMeta, QuantityMap, Taint } from './kube';
import { at, type Problems } from './problems';
import { validateMetadata } from './validate-kube';

/** A `karpenter.sh/v1` NodeClaim as the API server returns it: the fields the engine reads. */
export interface NodeClaimObject {
  kind: 'NodeClaim';
  metadata: ObjectMeta;
  spec: {
    nodeClassRef?: { group?: string; kind?: string; name: string };
    requirements?: NodeSelectorRequirementWithMinValues[];
    taints?: Taint[];
    startupTaints?: Taint[];
    resources?: { requests?: QuantityMap };
    expireAfter?: string;
    terminationGracePeriod?: string;
  };
  status?: {
    providerID?: string;
    nodeName?: string;
    imageID?: string;
    capacity?: QuantityMap;
    allocatable?: QuantityMap;
    conditions?: { type: string; status: 'True' | 'False' | 'Unknown'; reason?: string; message?: string }[];
  };
}

export function validateNodeClaimObject(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (spec) {
    const ref = expectObject(p, 'spec.nodeClassRef', spec.nodeClassRef);
    if (ref) expectString(p, 'spec.nodeClassRef.name', ref.name, true);
    checkRequirements(p, 'spec.requirements', spec.requirements, { nonNegativeBounds: true });
    checkTaints(p, 'spec.taints', spec.taints);
    checkTaints(p, 'spec.startupTaints', spec.startupTaints);
    const res = expectObject(p, 'spec.resources', spec.resources);
    if (res) expectQuantityMap(p, 'spec.resources.requests', res.requests);
  }
  const status = expectObject(p, 'status', doc.status);
  if (!status) return;
  expectString(p, 'status.providerID', status.providerID);
  expectString(p, 'status.nodeName', status.nodeName);
  expectQuantityMap(p, 'status.capacity', status.capacity);
  expectQuantityMap(p, 'status.allocatable', status.allocatable);
  validateConditions(p, 'status.conditions', status.conditions);
}

export function validateCSINode(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec, true);
  expectArray(p, 'spec.drivers', spec?.drivers)?.forEach((d, i) => {
    const dp = at('spec.drivers', i);
    const driver = expectObject(p, dp, d, true);
    if (!driver) return;
    expectString(p, at(dp, 'name'), driver.name, true);
    const alloc = expectObject(p, at(dp, 'allocatable'), driver.allocatable);
    if (alloc) expectInt(p, at(dp, 'allocatable.count'), alloc.count, { min: 0 });
  });
}

export function validateRuntimeClass(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  expectString(p, 'handler', doc.handler, true);
  const overhead = expectObject(p, 'overhead', doc.overhead);
  if (overhead) expectQuantityMap(p, 'overhead.podFixed', overhead.podFixed);
  const scheduling = expectObject(p, 'scheduling', doc.scheduling);
  if (scheduling) {
    expectLabels(p, 'scheduling.nodeSelector', scheduling.nodeSelector);
    checkTolerations(p, 'scheduling.tolerations', scheduling.tolerations);
  }
}

/** Pod and object status conditions: a type and a status of True, False or Unknown. */
export function validateConditions(p: Problems, path: string, v: unknown): void {
  expectArray(p, path, v)?.forEach((c, i) => {
    const cp = at(path, i);
    const o = expectObject(p, cp, c, true);
    if (!o) return;
    expectString(p, at(cp, 'type'), o.type, true);
    expectEnum(p, at(cp, 'status'), o.status, ['True', 'False', 'Unknown'] as const, true);
    expectString(p, at(cp, 'reason'), o.reason);
  });
}

/** The condition of this type, if the object reports one. */
export function conditionOf(
  conditions: readonly { type: string; status: string; reason?: string; message?: string }[] | undefined,
  type: string,
): { type: string; status: string; reason?: string; message?: string } | undefined {
  return conditions?.find((c) => c.type === type);
}
