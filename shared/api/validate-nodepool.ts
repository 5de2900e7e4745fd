// Validation of a karpenter.sh/v1 NodePool, with the rules of Karpenter's CRD and webhooks.
import { Cron } from 'croner';
import {
  expectArray,
  expectDuration,
  expectEnum,
  expectInt,
  expectLabels,
  expectObject,
  expectQuantity,
  expectString,
  expectStringMap,
  isObj,
  type Obj,
  show,
} from './check';
import { checkRequirements, checkTaints } from './check-scheduling';
import { MAX_NODEPOOL_NAME_LENGTH } from './limits';
import { editDistance } from './nearest';
import { leftToOwnerMessage, otherProviderNodeClass } from './node-class-ref';
import { at, type Problems } from './problems';
import { restrictedLabelReason } from './restricted';

export const CONSOLIDATION_POLICIES = ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'] as const;
export const DISRUPTION_REASONS = ['Underutilized', 'Empty', 'Drifted'] as const;
export const BUDGET_NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;
export const BUDGET_DURATION = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;
export const CRON_MACROS = ['@annually', '@yearly', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'] as const;

export function validateNodePool(p: Problems, doc: Obj): void {
  const name = isObj(doc.metadata) ? doc.metadata.name : undefined;
  if (typeof name === 'string' && name.length > MAX_NODEPOOL_NAME_LENGTH) {
    p.error(
      'metadata.name',
      `is ${name.length} characters; a NodePool's name is the karpenter.sh/nodepool label value on its nodes, and label values stop at ${MAX_NODEPOOL_NAME_LENGTH}`,
    );
  }
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  const template = expectObject(p, 'spec.template', spec.template, true);
  if (template) validateTemplate(p, template);
  const disruption = expectObject(p, 'spec.disruption', spec.disruption);
  if (disruption) validateDisruption(p, disruption);
  const limits = expectObject(p, 'spec.limits', spec.limits);
  if (limits) {
    for (const [k, v] of Object.entries(limits)) expectQuantity(p, at('spec.limits', `[${JSON.stringify(k)}]`), v);
  }
  expectInt(p, 'spec.weight', spec.weight, { min: 1, max: 100 });
  validateStatic(p, spec);
}

/** Karpenter's CEL rules for static NodePools (`replicas` set): no weight, and no limit but `nodes`. */
function validateStatic(p: Problems, spec: Obj): void {
  if (spec.replicas === undefined || spec.replicas === null) return;
  expectInt(p, 'spec.replicas', spec.replicas, { min: 0 });
  if (spec.weight !== undefined) p.error('spec.weight', "'weight' is not supported on static NodePools");
  const limits = isObj(spec.limits) ? Object.keys(spec.limits) : [];
  if (limits.some((k) => k !== 'nodes')) {
    p.error('spec.limits', "only 'limits.nodes' is supported on static NodePools");
  }
}

function validateTemplate(p: Problems, template: Obj): void {
  const meta = expectObject(p, 'spec.template.metadata', template.metadata);
  if (meta) {
    expectLabels(p, 'spec.template.metadata.labels', meta.labels);
    for (const k of isObj(meta.labels) ? Object.keys(meta.labels) : []) {
      const reason = restrictedLabelReason(k);
      if (reason) p.error(at('spec.template.metadata.labels', `[${JSON.stringify(k)}]`), reason);
    }
    expectStringMap(p, 'spec.template.metadata.annotations', meta.annotations);
  }
  const spec = expectObject(p, 'spec.template.spec', template.spec, true);
  if (!spec) return;
  const ref = expectObject(p, 'spec.template.spec.nodeClassRef', spec.nodeClassRef, true);
  if (ref) {
    expectString(p, 'spec.template.spec.nodeClassRef.name', ref.name, true);
    const group = expectString(p, 'spec.template.spec.nodeClassRef.group', ref.group);
    const kind = expectString(p, 'spec.template.spec.nodeClassRef.kind', ref.kind);
    const other = otherProviderNodeClass({ group, kind });
    if (group !== undefined && other && !mistakenNodeClassGroup(group)) {
      // Another provider's pool (EKS Auto Mode's, say) is valid Karpenter input that Karpless leaves to its owner.
      p.warn('spec.template.spec.nodeClassRef', leftToOwnerMessage(String(p.ref.name), other));
    } else {
      if (group !== undefined && group !== 'karpenter.k8s.aws') {
        p.error('spec.template.spec.nodeClassRef.group', `${show(group)} is not supported: use karpenter.k8s.aws`);
      }
      if (kind !== undefined && kind !== 'EC2NodeClass') {
        p.error('spec.template.spec.nodeClassRef.kind', `${show(kind)} is not supported: use EC2NodeClass`);
      }
    }
  }
  checkRequirements(p, 'spec.template.spec.requirements', spec.requirements, {
    nodePool: true,
    nonNegativeBounds: true,
  });
  checkTaints(p, 'spec.template.spec.taints', spec.taints);
  checkTaints(p, 'spec.template.spec.startupTaints', spec.startupTaints);
  expectDuration(p, 'spec.template.spec.expireAfter', spec.expireAfter, true);
  expectDuration(p, 'spec.template.spec.terminationGracePeriod', spec.terminationGracePeriod, false);
  if (spec.kubelet !== undefined) {
    p.warn(
      'spec.template.spec.kubelet',
      'moved to the EC2NodeClass (spec.kubelet) in Karpenter v1; ignored here — move it to the EC2NodeClass',
    );
  }
}

/** A group no provider uses for its node classes, so more likely a slip than another provider's pool: one with a
 * version (the CRD's pattern `^[^/]*$` refuses it), Karpenter's own API group, or a near miss of karpenter.k8s.aws. */
function mistakenNodeClassGroup(group: string): boolean {
  return group.includes('/') || group === 'karpenter.sh' || editDistance(group, 'karpenter.k8s.aws') <= 3;
}

function validateDisruption(p: Problems, d: Obj): void {
  if (d.consolidationPolicy === 'WhenUnderutilized') {
    p.error(
      'spec.disruption.consolidationPolicy',
      '"WhenUnderutilized" is not one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced (v1beta1\'s WhenUnderutilized is WhenEmptyOrUnderutilized in v1)',
    );
  } else {
    expectEnum(p, 'spec.disruption.consolidationPolicy', d.consolidationPolicy, CONSOLIDATION_POLICIES);
  }
  expectDuration(p, 'spec.disruption.consolidateAfter', d.consolidateAfter, true);
  if (d.expireAfter !== undefined) {
    p.warn(
      'spec.disruption.expireAfter',
      'is a v1beta1 field; in v1 it is spec.template.spec.expireAfter, so it is ignored here — move it',
    );
  }
  const budgets = expectArray(p, 'spec.disruption.budgets', d.budgets);
  if (!budgets) return;
  if (budgets.length > 50) p.error('spec.disruption.budgets', `must have at most 50 budgets, got ${budgets.length}`);
  budgets.forEach((item, i) => {
    validateBudget(p, at('spec.disruption.budgets', i), item);
  });
}

function validateBudget(p: Problems, path: string, v: unknown): void {
  const b = expectObject(p, path, v, true);
  if (!b) return;
  const nodes = b.nodes;
  if (nodes === undefined || nodes === null) p.error(at(path, 'nodes'), 'required');
  else if (typeof nodes !== 'string' || !BUDGET_NODES.test(nodes)) {
    p.error(at(path, 'nodes'), `${show(nodes)} must be a count ("5") or a percentage from 0% to 100% ("10%")`);
  }
  const schedule = expectString(p, at(path, 'schedule'), b.schedule);
  if (schedule !== undefined) {
    const problem = cronProblem(schedule);
    if (problem) p.error(at(path, 'schedule'), problem);
  }
  const duration = expectString(p, at(path, 'duration'), b.duration);
  if (duration !== undefined && !BUDGET_DURATION.test(duration)) {
    p.error(at(path, 'duration'), `${show(duration)} must be whole hours and/or minutes (for example 30m, 8h, 1h30m)`);
  }
  if ((b.schedule === undefined) !== (b.duration === undefined)) {
    p.error(path, "'schedule' must be set with 'duration'");
  }
  const reasons = expectArray(p, at(path, 'reasons'), b.reasons);
  reasons?.forEach((r, i) => {
    expectEnum(p, at(path, 'reasons', i), r, DISRUPTION_REASONS);
  });
}

/** Why a budget schedule is not a 5-field cron expression or macro, or undefined when it is valid. */
export function cronProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  if (text.startsWith('@')) {
    return (CRON_MACROS as readonly string[]).includes(text)
      ? undefined
      : `${show(schedule)} is not one of ${CRON_MACROS.join(', ')}`;
  }
  const fields = text.split(/\s+/);
  if (fields.length !== 5) {
    return `${show(schedule)} must have 5 fields (minute hour day-of-month month day-of-week) or be a macro such as @daily`;
  }
  try {
    new Cron(text, { timezone: 'UTC' });
    return undefined;
  } catch (err) {
    return `${show(schedule)} is not a valid cron schedule: ${err instanceof Error ? err.message : String(err)}`;
  }
}
