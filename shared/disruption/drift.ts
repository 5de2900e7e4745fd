// Drift: a node no longer matches what its NodePool and EC2NodeClass would launch today. The NodePool hash leaves
// the requirements out (as Karpenter's does): a requirement change drifts a node only when the node's labels no
// longer satisfy it, so widening an `In` list never does.

import { CLAIM_HASH_VERSION, nodeClassHash as classHash, nodePoolTemplateHash as templateHash } from '../api/hash';
import type { EC2NodeClass, NodePool, NodeSelectorRequirementWithMinValues } from '../api/karpenter';
import { WellKnownLabels } from '../api/labels';
import type { DisruptionNode } from './types';

const memo = new WeakMap<object, string>();

function cached(key: object, compute: () => string): string {
  let h = memo.get(key);
  if (h === undefined) {
    h = compute();
    memo.set(key, h);
  }
  return h;
}

/** The NodePool hash the disruption engine compares: the template without its requirements, as claimHashes
 * (shared/api/hash.ts) records it. Objects are treated as immutable within a sweep, so hashes are cached per object. */
export function nodePoolTemplateHash(pool: NodePool): string {
  return cached(pool.spec.template, () => templateHash(pool));
}

export const nodeClassHash = (nodeClass: EC2NodeClass): string => cached(nodeClass.spec, () => classHash(nodeClass));

/** Whether a label value satisfies one requirement; an absent well-known label is not held against the node. */
export function labelSatisfies(labels: Record<string, string>, r: NodeSelectorRequirementWithMinValues): boolean {
  const value = labels[r.key];
  if (value === undefined) {
    if (r.operator === 'NotIn' || r.operator === 'DoesNotExist') return true;
    return WellKnownLabels.has(r.key);
  }
  const n = Number(value);
  const bound = Number(r.values?.[0]);
  switch (r.operator) {
    case 'In':
      return (r.values ?? []).includes(value);
    case 'NotIn':
      return !(r.values ?? []).includes(value);
    case 'Exists':
      return true;
    case 'DoesNotExist':
      return false;
    case 'Gt':
      return n > bound;
    case 'Lt':
      return n < bound;
    case 'Gte':
      return n >= bound;
    case 'Lte':
      return n <= bound;
  }
}

const minor = (v: string): string | undefined => /^v?(\d+\.\d+)/.exec(v.trim())?.[1];

/** Why the node drifted, or undefined. The recorded hashes are compared only when they are of the current version
 * (CLAIM_HASH_VERSION); the other checks apply to every claim. */
export function driftReason(
  n: DisruptionNode,
  pool: NodePool,
  nodeClass: EC2NodeClass | undefined,
  kubernetesVersion: string | undefined,
): string | undefined {
  const claim = n.claim;
  const comparable = claim.hashVersion === CLAIM_HASH_VERSION;
  if (comparable && claim.nodePoolHash && claim.nodePoolHash !== nodePoolTemplateHash(pool)) {
    return `NodePool ${pool.metadata.name} template changed (labels, annotations, taints, expireAfter or nodeClassRef)`;
  }
  for (const r of pool.spec.template.spec.requirements) {
    if (!labelSatisfies(n.node.labels, r)) {
      return `NodePool ${pool.metadata.name} requirement ${r.key} ${r.operator} ${(r.values ?? []).join(',')} no longer admits the node (${r.key}=${n.node.labels[r.key] ?? '<unset>'})`;
    }
  }
  for (const [k, v] of Object.entries(pool.spec.template.metadata?.labels ?? {})) {
    if (n.node.labels[k] !== v) return `NodePool ${pool.metadata.name} label ${k}=${v} missing on the node`;
  }
  if (pool.spec.template.spec.nodeClassRef.name !== claim.nodeClass) {
    return `NodePool ${pool.metadata.name} now references EC2NodeClass ${pool.spec.template.spec.nodeClassRef.name}`;
  }
  if (comparable && nodeClass && claim.nodeClassHash && claim.nodeClassHash !== nodeClassHash(nodeClass)) {
    return `EC2NodeClass ${nodeClass.metadata.name} changed (userData, tags, kubelet, block devices, metadata options or other launch settings)`;
  }
  if (n.cloudDrift) return n.cloudDrift;
  if (kubernetesVersion && n.kubeletVersion) {
    const want = minor(kubernetesVersion);
    const have = minor(n.kubeletVersion);
    if (want && have && want !== have) return `kubelet ${have} differs from the control plane's ${want}`;
  }
  return undefined;
}
