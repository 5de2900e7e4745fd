// Validation of the Kubernetes objects the simulator and engine read: enough to catch what the API server would
// reject and what would make scheduling meaningless (bad quantities, malformed selectors, negative replicas).
import {
  expectArray,
  expectBool,
  expectEnum,
  expectInt,
  expectLabels,
  expectObject,
  expectQuantityMap,
  expectString,
  expectStringMap,
  isObj,
  type Obj,
  show,
} from './check';
import { checkLabelSelector, checkNodeSelectorTerm, checkTaints, checkTolerations } from './check-scheduling';
import type { LabelSelector } from './kube';
import { MAX_NAME_LENGTH } from './limits';
import { at, type Problems } from './problems';
import { parseQuantity } from './quantity';
import { matchesLabelSelector } from './selector';

export function validateMetadata(p: Problems, doc: Obj): void {
  const meta = expectObject(p, 'metadata', doc.metadata, true);
  if (!meta) return;
  const name = expectString(p, 'metadata.name', meta.name, true);
  if (name !== undefined && name.length > MAX_NAME_LENGTH) {
    p.error('metadata.name', `is ${name.length} characters; Kubernetes names stop at ${MAX_NAME_LENGTH}`);
  }
  expectString(p, 'metadata.namespace', meta.namespace);
  expectLabels(p, 'metadata.labels', meta.labels);
  expectStringMap(p, 'metadata.annotations', meta.annotations);
}

export function validatePodSpec(p: Problems, path: string, v: unknown): void {
  const spec = expectObject(p, path, v, true);
  if (!spec) return;
  const containers = expectArray(p, at(path, 'containers'), spec.containers, true);
  if (containers && containers.length === 0) p.error(at(path, 'containers'), 'must have at least one container');
  containers?.forEach((c, i) => {
    validateContainer(p, at(path, 'containers', i), c);
  });
  expectArray(p, at(path, 'initContainers'), spec.initContainers)?.forEach((c, i) => {
    const cp = at(path, 'initContainers', i);
    validateContainer(p, cp, c);
    if (expectObject(p, cp, c)?.restartPolicy !== undefined) {
      expectEnum(p, at(cp, 'restartPolicy'), (c as Obj).restartPolicy, ['Always'] as const);
    }
  });
  expectQuantityMap(p, at(path, 'overhead'), spec.overhead);
  expectLabels(p, at(path, 'nodeSelector'), spec.nodeSelector);
  checkTolerations(p, at(path, 'tolerations'), spec.tolerations);
  expectString(p, at(path, 'nodeName'), spec.nodeName);
  expectString(p, at(path, 'priorityClassName'), spec.priorityClassName);
  expectString(p, at(path, 'runtimeClassName'), spec.runtimeClassName);
  expectInt(p, at(path, 'priority'), spec.priority);
  expectBool(p, at(path, 'hostNetwork'), spec.hostNetwork);
  const affinity = expectObject(p, at(path, 'affinity'), spec.affinity);
  if (affinity) validateAffinity(p, at(path, 'affinity'), affinity);
  expectArray(p, at(path, 'topologySpreadConstraints'), spec.topologySpreadConstraints)?.forEach((c, i) => {
    validateSpread(p, at(path, 'topologySpreadConstraints', i), c);
  });
  expectArray(p, at(path, 'volumes'), spec.volumes)?.forEach((vol, i) => {
    const vp = at(path, 'volumes', i);
    const o = expectObject(p, vp, vol, true);
    if (!o) return;
    expectString(p, at(vp, 'name'), o.name, true);
    const pvc = expectObject(p, at(vp, 'persistentVolumeClaim'), o.persistentVolumeClaim);
    if (pvc) expectString(p, at(vp, 'persistentVolumeClaim.claimName'), pvc.claimName, true);
  });
}

function validateContainer(p: Problems, path: string, v: unknown): void {
  const c = expectObject(p, path, v, true);
  if (!c) return;
  expectString(p, at(path, 'name'), c.name, true);
  const res = expectObject(p, at(path, 'resources'), c.resources);
  if (res) {
    const requestsOk = expectQuantityMap(p, at(path, 'resources.requests'), res.requests);
    const limitsOk = expectQuantityMap(p, at(path, 'resources.limits'), res.limits);
    if (requestsOk && limitsOk && isObj(res.requests) && isObj(res.limits)) {
      for (const [name, limit] of Object.entries(res.limits)) {
        const request = res.requests[name];
        if (request === undefined) continue;
        if (parseQuantity(request as string | number) > parseQuantity(limit as string | number)) {
          p.error(
            at(path, 'resources.requests', `[${JSON.stringify(name)}]`),
            `must be less than or equal to the ${name} limit (${limit})`,
          );
        }
      }
    }
  }
  expectArray(p, at(path, 'ports'), c.ports)?.forEach((port, i) => {
    const pp = at(path, 'ports', i);
    const o = expectObject(p, pp, port, true);
    if (!o) return;
    expectInt(p, at(pp, 'containerPort'), o.containerPort, { min: 1, max: 65535, required: true });
    expectInt(p, at(pp, 'hostPort'), o.hostPort, { min: 0, max: 65535 });
    expectEnum(p, at(pp, 'protocol'), o.protocol, ['TCP', 'UDP', 'SCTP'] as const);
  });
}

function validateAffinity(p: Problems, path: string, a: Obj): void {
  const na = expectObject(p, at(path, 'nodeAffinity'), a.nodeAffinity);
  if (na) {
    const rp = at(path, 'nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution');
    const req = expectObject(p, rp, na.requiredDuringSchedulingIgnoredDuringExecution);
    if (req) {
      const terms = expectArray(p, at(rp, 'nodeSelectorTerms'), req.nodeSelectorTerms, true);
      if (terms && terms.length === 0) p.error(at(rp, 'nodeSelectorTerms'), 'must have at least one term');
      terms?.forEach((t, i) => {
        checkNodeSelectorTerm(p, at(rp, 'nodeSelectorTerms', i), t);
      });
    }
    const pp = at(path, 'nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution');
    expectArray(p, pp, na.preferredDuringSchedulingIgnoredDuringExecution)?.forEach((t, i) => {
      const o = expectObject(p, at(pp, i), t, true);
      if (!o) return;
      expectInt(p, at(pp, i, 'weight'), o.weight, { min: 1, max: 100, required: true });
      checkNodeSelectorTerm(p, at(pp, i, 'preference'), o.preference);
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const pa = expectObject(p, at(path, kind), a[kind]);
    if (!pa) continue;
    const rp = at(path, kind, 'requiredDuringSchedulingIgnoredDuringExecution');
    expectArray(p, rp, pa.requiredDuringSchedulingIgnoredDuringExecution)?.forEach((t, i) => {
      validatePodAffinityTerm(p, at(rp, i), t);
    });
    const pp = at(path, kind, 'preferredDuringSchedulingIgnoredDuringExecution');
    expectArray(p, pp, pa.preferredDuringSchedulingIgnoredDuringExecution)?.forEach((t, i) => {
      const o = expectObject(p, at(pp, i), t, true);
      if (!o) return;
      expectInt(p, at(pp, i, 'weight'), o.weight, { min: 1, max: 100, required: true });
      validatePodAffinityTerm(p, at(pp, i, 'podAffinityTerm'), o.podAffinityTerm);
    });
  }
}

function validatePodAffinityTerm(p: Problems, path: string, v: unknown): void {
  const t = expectObject(p, path, v, true);
  if (!t) return;
  expectString(p, at(path, 'topologyKey'), t.topologyKey, true);
  checkLabelSelector(p, at(path, 'labelSelector'), t.labelSelector);
  checkLabelSelector(p, at(path, 'namespaceSelector'), t.namespaceSelector);
  expectArray(p, at(path, 'namespaces'), t.namespaces)?.forEach((n, i) => {
    expectString(p, at(path, 'namespaces', i), n, true);
  });
}

function validateSpread(p: Problems, path: string, v: unknown): void {
  const c = expectObject(p, path, v, true);
  if (!c) return;
  expectInt(p, at(path, 'maxSkew'), c.maxSkew, { min: 1, required: true });
  expectString(p, at(path, 'topologyKey'), c.topologyKey, true);
  const when = expectEnum(
    p,
    at(path, 'whenUnsatisfiable'),
    c.whenUnsatisfiable,
    ['DoNotSchedule', 'ScheduleAnyway'] as const,
    true,
  );
  const minDomains = expectInt(p, at(path, 'minDomains'), c.minDomains, { min: 1 });
  if (minDomains !== undefined && when === 'ScheduleAnyway') {
    p.error(at(path, 'minDomains'), 'may only be set with whenUnsatisfiable DoNotSchedule');
  }
  checkLabelSelector(p, at(path, 'labelSelector'), c.labelSelector);
  expectEnum(p, at(path, 'nodeAffinityPolicy'), c.nodeAffinityPolicy, ['Honor', 'Ignore'] as const);
  expectEnum(p, at(path, 'nodeTaintsPolicy'), c.nodeTaintsPolicy, ['Honor', 'Ignore'] as const);
}

export function validatePod(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  expectString(p, 'metadata.deletionTimestamp', (doc.metadata as Obj | undefined)?.deletionTimestamp);
  validatePodSpec(p, 'spec', doc.spec);
  // A dump's pods carry status: the phase and PodScheduled condition decide whether a pod is provisioned for.
  const status = expectObject(p, 'status', doc.status);
  if (!status) return;
  expectEnum(p, 'status.phase', status.phase, ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const);
  expectString(p, 'status.nominatedNodeName', status.nominatedNodeName);
  expectArray(p, 'status.conditions', status.conditions)?.forEach((c, i) => {
    const cp = at('status.conditions', i);
    const o = expectObject(p, cp, c, true);
    if (!o) return;
    expectString(p, at(cp, 'type'), o.type, true);
    expectEnum(p, at(cp, 'status'), o.status, ['True', 'False', 'Unknown'] as const, true);
    expectString(p, at(cp, 'reason'), o.reason);
  });
}

/** Deployment, ReplicaSet and StatefulSet: replicas, a selector that matches the template, and the pod template. */
export function validateWorkload(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  expectInt(p, 'spec.replicas', spec.replicas, { min: 0 });
  validateTemplate(p, spec);
  if (doc.kind === 'StatefulSet') {
    expectArray(p, 'spec.volumeClaimTemplates', spec.volumeClaimTemplates)?.forEach((t, i) => {
      const tp = at('spec.volumeClaimTemplates', i);
      const o = expectObject(p, tp, t, true);
      if (!o) return;
      expectString(p, at(tp, 'metadata.name'), expectObject(p, at(tp, 'metadata'), o.metadata, true)?.name, true);
      validatePvcSpec(p, at(tp, 'spec'), o.spec);
    });
  }
}

export function validateDaemonSet(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (spec) validateTemplate(p, spec);
}

function validateTemplate(p: Problems, spec: Obj): void {
  const selectorOk = checkLabelSelector(p, 'spec.selector', spec.selector);
  const template = expectObject(p, 'spec.template', spec.template, true);
  if (!template) return;
  const meta = expectObject(p, 'spec.template.metadata', template.metadata);
  const labels = expectLabels(p, 'spec.template.metadata.labels', meta?.labels);
  validatePodSpec(p, 'spec.template.spec', template.spec);
  const selector = spec.selector as LabelSelector | undefined;
  if (selectorOk && selector && !matchesLabelSelector(labels, selector)) {
    p.error('spec.selector', 'does not match spec.template.metadata.labels');
  }
}

export function validateJob(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  expectInt(p, 'spec.parallelism', spec.parallelism, { min: 0 });
  expectInt(p, 'spec.completions', spec.completions, { min: 0 });
  const template = expectObject(p, 'spec.template', spec.template, true);
  if (!template) return;
  expectLabels(
    p,
    'spec.template.metadata.labels',
    expectObject(p, 'spec.template.metadata', template.metadata)?.labels,
  );
  validatePodSpec(p, 'spec.template.spec', template.spec);
}

const INT_OR_PERCENT = /^\d+%$/;

export function validatePdb(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  const hasMin = spec.minAvailable !== undefined && spec.minAvailable !== null;
  const hasMax = spec.maxUnavailable !== undefined && spec.maxUnavailable !== null;
  if (hasMin === hasMax) p.error('spec', 'must set exactly one of minAvailable, maxUnavailable');
  for (const field of ['minAvailable', 'maxUnavailable'] as const) {
    const v = spec[field];
    if (v === undefined || v === null) continue;
    const ok =
      (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && INT_OR_PERCENT.test(v));
    if (!ok) p.error(at('spec', field), `${show(v)} must be a non-negative integer or a percentage such as "50%"`);
  }
  checkLabelSelector(p, 'spec.selector', spec.selector);
}

export function validateNode(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec);
  if (spec) {
    checkTaints(p, 'spec.taints', spec.taints);
    expectBool(p, 'spec.unschedulable', spec.unschedulable);
    expectString(p, 'spec.providerID', spec.providerID);
  }
  const status = expectObject(p, 'status', doc.status);
  if (status) {
    expectQuantityMap(p, 'status.capacity', status.capacity);
    expectQuantityMap(p, 'status.allocatable', status.allocatable);
  }
}

function validatePvcSpec(p: Problems, path: string, v: unknown): void {
  const spec = expectObject(p, path, v, true);
  if (!spec) return;
  expectString(p, at(path, 'storageClassName'), spec.storageClassName);
  expectString(p, at(path, 'volumeName'), spec.volumeName);
  expectArray(p, at(path, 'accessModes'), spec.accessModes)?.forEach((m, i) => {
    expectEnum(p, at(path, 'accessModes', i), m, [
      'ReadWriteOnce',
      'ReadOnlyMany',
      'ReadWriteMany',
      'ReadWriteOncePod',
    ] as const);
  });
  const res = expectObject(p, at(path, 'resources'), spec.resources);
  if (res) expectQuantityMap(p, at(path, 'resources.requests'), res.requests);
}

export function validatePvc(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  validatePvcSpec(p, 'spec', doc.spec);
}

export function validatePv(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  expectQuantityMap(p, 'spec.capacity', spec.capacity);
  expectString(p, 'spec.storageClassName', spec.storageClassName);
  const na = expectObject(p, 'spec.nodeAffinity', spec.nodeAffinity);
  const required = expectObject(p, 'spec.nodeAffinity.required', na?.required);
  expectArray(p, 'spec.nodeAffinity.required.nodeSelectorTerms', required?.nodeSelectorTerms, !!required)?.forEach(
    (t, i) => {
      checkNodeSelectorTerm(p, at('spec.nodeAffinity.required.nodeSelectorTerms', i), t);
    },
  );
  // The driver names the attach limit the volume counts against (docs/simulate-dump.md, Volume attach limits).
  const csi = expectObject(p, 'spec.csi', spec.csi);
  if (csi) expectString(p, 'spec.csi.driver', csi.driver, true);
  const ebs = expectObject(p, 'spec.awsElasticBlockStore', spec.awsElasticBlockStore);
  if (ebs) expectString(p, 'spec.awsElasticBlockStore.volumeID', ebs.volumeID, true);
}

export function validateStorageClass(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  expectString(p, 'provisioner', doc.provisioner, true);
  expectEnum(p, 'volumeBindingMode', doc.volumeBindingMode, ['Immediate', 'WaitForFirstConsumer'] as const);
  expectStringMap(p, 'parameters', doc.parameters);
  expectArray(p, 'allowedTopologies', doc.allowedTopologies)?.forEach((t, i) => {
    const tp = at('allowedTopologies', i);
    const o = expectObject(p, tp, t, true);
    expectArray(p, at(tp, 'matchLabelExpressions'), o?.matchLabelExpressions)?.forEach((e, j) => {
      const ep = at(tp, 'matchLabelExpressions', j);
      const expr = expectObject(p, ep, e, true);
      if (!expr) return;
      expectString(p, at(ep, 'key'), expr.key, true);
      const values = expectArray(p, at(ep, 'values'), expr.values, true);
      values?.forEach((val, k) => {
        expectString(p, at(ep, 'values', k), val, true);
      });
    });
  });
}

export function validatePriorityClass(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
  expectInt(p, 'value', doc.value, { max: 1_000_000_000, required: true });
  expectBool(p, 'globalDefault', doc.globalDefault);
}

export function validateNamespace(p: Problems, doc: Obj): void {
  validateMetadata(p, doc);
}
