// What the forwarder keeps from a watched object: its key, a reference for the message, and a fingerprint of the
// fields whose change is worth a message. Everything else is dropped as soon as the watch line is parsed.

import { MANAGED_BY_KARPLESS, MANAGED_BY_LABEL } from '../shared/api/nodeclaim-object';
import { isProvisionable } from '../shared/api/pending';
import { REPAIR_CONDITION_TYPES } from '../shared/api/repair-policies';
import type { ObjectRef } from '../shared/messages';

export type WatchedResource = 'pods' | 'nodes' | 'nodepools' | 'ec2nodeclasses' | 'nodeoverlays' | 'nodeclaims';

export interface Slim {
  key: string;
  ref: ObjectRef;
  /** For pods: provisionable. For NodeClaims: Karpless's own, with a deletion mark. For other objects: always true. */
  relevant: boolean;
  /** Changes to this string (and only these) produce a message. */
  fingerprint: string;
}

type Raw = {
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string }[];
  };
  spec?: { nodeName?: string; unschedulable?: boolean; taints?: { key: string; value?: string; effect: string }[] };
  status?: {
    phase?: string;
    nominatedNodeName?: string;
    conditions?: { type: string; status: string; reason?: string }[];
  };
};

function ref(raw: Raw, kind?: string): ObjectRef {
  const m = raw.metadata ?? {};
  return {
    ...(kind ? { kind } : {}),
    ...(m.namespace ? { namespace: m.namespace } : {}),
    name: m.name ?? '',
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

function keyOf(raw: Raw): string {
  const m = raw.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? '');
}

export function slimPod(raw: Raw): Slim {
  const pod = {
    metadata: { name: raw.metadata?.name ?? '', namespace: raw.metadata?.namespace ?? '', ...raw.metadata },
    spec: { containers: [], nodeName: raw.spec?.nodeName },
    status: raw.status,
  };
  return { key: keyOf(raw), ref: ref(raw), relevant: isProvisionable(pod as never), fingerprint: '' };
}

/** Readiness and the other conditions node repair watches, schedulability, taints, Karpenter labels and deletion:
 * what changes placement, lifecycle or repair. A condition is carried as a change of the fingerprint, so the control
 * plane re-reads the Node; the message never carries the condition itself (docs/architecture.md, Node repair). */
export function slimNode(raw: Raw): Slim {
  const ready = raw.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
  const watched = (raw.status?.conditions ?? [])
    .filter((c) => c.type !== 'Ready' && REPAIR_CONDITION_TYPES.includes(c.type))
    .map((c) => `${c.type}=${c.status}`)
    .sort();
  const taints = (raw.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort();
  const labels = Object.entries(raw.metadata?.labels ?? {})
    .filter(([k]) => k.startsWith('karpenter.') || k.startsWith('node.kubernetes.io/') || k.startsWith('topology.'))
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  const fingerprint = [
    ready,
    raw.spec?.unschedulable ? 'cordoned' : '',
    raw.metadata?.deletionTimestamp ? 'deleting' : '',
    taints.join(','),
    labels.join(','),
    watched.join(','),
  ].join('|');
  return { key: keyOf(raw), ref: ref(raw), relevant: true, fingerprint };
}

/** Spec changes bump metadata.generation; status churn does not. */
export function slimKarpenterObject(raw: Raw, kind: 'NodePool' | 'EC2NodeClass' | 'NodeOverlay'): Slim {
  const fingerprint = `${raw.metadata?.generation ?? raw.metadata?.resourceVersion ?? ''}${raw.metadata?.deletionTimestamp ? '|deleting' : ''}`;
  return { key: keyOf(raw), ref: ref(raw, kind), relevant: true, fingerprint };
}

/** Only the deletion mark of a NodeClaim Karpless mirrors is news (`kubectl delete nodeclaim`); its status churn,
 * the mirror's own writes and Karpenter's NodeClaims in a cluster being migrated are not. */
export function slimNodeClaim(raw: Raw): Slim {
  const relevant =
    raw.metadata?.deletionTimestamp !== undefined && raw.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_KARPLESS;
  return { key: keyOf(raw), ref: ref(raw, 'NodeClaim'), relevant, fingerprint: '' };
}

export function slimFor(resource: WatchedResource, raw: unknown): Slim {
  const r = raw as Raw;
  switch (resource) {
    case 'pods':
      return slimPod(r);
    case 'nodes':
      return slimNode(r);
    case 'nodepools':
      return slimKarpenterObject(r, 'NodePool');
    case 'ec2nodeclasses':
      return slimKarpenterObject(r, 'EC2NodeClass');
    case 'nodeoverlays':
      return slimKarpenterObject(r, 'NodeOverlay');
    case 'nodeclaims':
      return slimNodeClaim(r);
  }
}
