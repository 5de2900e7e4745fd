// Stable content hashes recorded on a NodeClaim at launch (its NodePool template and EC2NodeClass spec), so drift
// detection can tell later whether either changed. They cover what Karpenter's `karpenter.sh/nodepool-hash` and
// `karpenter.k8s.aws/ec2nodeclass-hash` cover (docs/disruption.md, Drift): key order, list order where Karpenter
// hashes a list as a set, and spellings of one value ("1h" and "60m") never change them.
import { amiFamilyOf, DEFAULT_METADATA_OPTIONS } from './defaults';
import type { BlockDeviceMapping, EC2NodeClass, NodePool } from './karpenter';
import type { Taint } from './kube';
import type { NodeClaim } from './nodeclaim';
import { parseDuration, parseQuantity } from './quantity';

/** JSON with object keys sorted at every level and undefined members left out: equal values, equal text. */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

function fnv1a(text: string, seed: number): string {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** 64 bits of FNV-1a (two seeds) over the value's canonical JSON. */
export function specHash(value: unknown): string {
  const text = stableJson(value);
  return fnv1a(text, 0x811c9dc5) + fnv1a(text, 0x050c5d1f);
}

/** A list Karpenter hashes as a set (its hash options treat slices as sets): reordering it changes nothing. An empty
 * list counts as an absent one, as the API server's omitempty makes it. */
function asSet(items: readonly unknown[] | undefined): string[] | undefined {
  return items && items.length > 0 ? items.map(stableJson).sort() : undefined;
}

const nonEmpty = <T extends object>(o: T | undefined): T | undefined =>
  o && Object.keys(o).length > 0 ? o : undefined;

/** A duration as Karpenter hashes it: its length, so "1h" and "60m" are one value; "Never" stays itself. */
function durationValue(d: string | undefined): string | number | undefined {
  if (d === undefined || d.trim() === 'Never') return d?.trim();
  try {
    return parseDuration(d);
  } catch {
    return d; // validated upstream; an unparsable value still hashes, as written
  }
}

/** A taint as Karpenter hashes it: an empty value is a zero value, left out like an absent one. */
const taintValue = ({ value, ...t }: Taint): Taint => (value ? { ...t, value } : t);

const BINARY_UNITS: [string, number][] = [
  ['Ei', 2 ** 60],
  ['Pi', 2 ** 50],
  ['Ti', 2 ** 40],
  ['Gi', 2 ** 30],
  ['Mi', 2 ** 20],
  ['Ki', 2 ** 10],
];
const DECIMAL_UNITS: [string, number][] = [
  ['E', 1e18],
  ['P', 1e15],
  ['T', 1e12],
  ['G', 1e9],
  ['M', 1e6],
  ['k', 1e3],
];

/** A quantity in Kubernetes' canonical form within its suffix family ("1024Gi" is "1Ti", "2000G" is "2T"): the
 * volume size Karpenter hashes is the quantity's canonical string. */
export function canonicalQuantity(q: string): string {
  let value: number;
  try {
    value = parseQuantity(q);
  } catch {
    return q;
  }
  if (!Number.isInteger(value) || value === 0) return q;
  const units = /[KMGTPE]i$/.test(q) ? BINARY_UNITS : DECIMAL_UNITS;
  for (const [suffix, size] of units) if (value % size === 0) return `${value / size}${suffix}`;
  return String(value);
}

/** A block device as Karpenter hashes it: `rootVolume: false` is a zero value, the size canonical. */
function deviceValue({ rootVolume, ebs, ...m }: BlockDeviceMapping): BlockDeviceMapping {
  const size = ebs?.volumeSize;
  return {
    ...m,
    ...(rootVolume ? { rootVolume } : {}),
    ...(ebs ? { ebs: { ...ebs, ...(size !== undefined ? { volumeSize: canonicalQuantity(size) } : {}) } } : {}),
  };
}

/** The NodePool hash a claim records: its template (labels, annotations, taints and startup taints as sets,
 * nodeClassRef, expireAfter, terminationGracePeriod) without the requirements, as Karpenter's is. A requirement
 * change drifts a node only when the node's labels stop satisfying it (shared/disruption/drift.ts), so widening an
 * `In` list never does. Must equal shared/disruption's nodePoolTemplateHash. */
export function nodePoolTemplateHash(pool: NodePool): string {
  const { metadata, spec } = pool.spec.template;
  const { requirements: _requirements, taints, startupTaints, expireAfter, terminationGracePeriod, ...rest } = spec;
  return specHash({
    metadata: { ...metadata, labels: nonEmpty(metadata?.labels), annotations: nonEmpty(metadata?.annotations) },
    spec: {
      ...rest,
      taints: asSet(taints?.map(taintValue)),
      startupTaints: asSet(startupTaints?.map(taintValue)),
      expireAfter: durationValue(expireAfter),
      terminationGracePeriod: durationValue(terminationGracePeriod),
    },
  });
}

/** The EC2NodeClass fields Karpenter's hash ignores. The selector terms drift dynamically instead: a node drifts when
 * its AMI, subnet, security groups or capacity reservation are no longer what the terms resolve to
 * (CloudProvider.isDrifted), so a term rewritten to select the same resources replaces nothing. `amiFamily` is hashed
 * resolved (below); Karpless does not model `ipPrefixCount`, named so it is never hashed if a manifest carries it. */
const NODE_CLASS_UNHASHED: ReadonlySet<string> = new Set([
  'subnetSelectorTerms',
  'securityGroupSelectorTerms',
  'capacityReservationSelectorTerms',
  'amiSelectorTerms',
  'amiFamily',
  'ipPrefixCount',
]);

/** The EC2NodeClass hash a claim records: every spec field but the ones above (userData, tags, kubelet,
 * blockDeviceMappings as a set, metadataOptions with the API's defaults, role or instanceProfile, context,
 * detailedMonitoring, associatePublicIPAddress, instanceStorePolicy, ...) plus the resolved AMI family, so setting
 * `amiFamily: AL2023` beside an `al2023@latest` alias drifts nothing. Must equal shared/disruption's nodeClassHash. */
export function nodeClassHash(nodeClass: EC2NodeClass): string {
  const spec = nodeClass.spec;
  const hashed = Object.fromEntries(Object.entries(spec).filter(([k]) => !NODE_CLASS_UNHASHED.has(k)));
  return specHash({
    spec: {
      ...hashed,
      tags: nonEmpty(spec.tags),
      metadataOptions: { ...DEFAULT_METADATA_OPTIONS, ...spec.metadataOptions },
      blockDeviceMappings: asSet(spec.blockDeviceMappings?.map(deviceValue)),
    },
    amiFamily: amiFamilyOf(spec) ?? 'Custom',
  });
}

/**
 * Bump whenever what the hashes cover, or how they are computed, changes. A claim recorded under another version
 * cannot be compared, since its hash would differ with nothing changed and every node of every cluster would drift at
 * once. Drift skips the comparison for it instead, and the next planning sweep re-stamps it with today's hashes
 * (shared/controllers/claim-hashes.ts; Karpenter's nodepool-hash-version and ec2nodeclass-hash-version do the same).
 * A claim its own version's hash already drifted keeps its stale hash, so it stays drifted.
 * Version 2: the NodePool hash leaves the requirements out on every path (version 1 claims may carry the full
 * template hash of a disruption replacement).
 * Version 3: the EC2NodeClass hash leaves capacityReservationSelectorTerms out.
 * Version 4: Karpenter's coverage: the EC2NodeClass hash leaves every selector term out and hashes the resolved AMI
 * family; block devices and taints hash as sets, durations and volume sizes by value.
 */
export const CLAIM_HASH_VERSION = 4;

/** The hashes a new NodeClaim records, exactly the ones drift detection compares. Every path that creates a claim
 * (provisioning, which interruption replacements go through, and disruption replacements) calls this, so none can
 * record a hash drift reads differently: a replacement that recorded the full template hash was drifted by the
 * next requirement change, however harmless, and replaced again. */
export function claimHashes(
  nodePool: NodePool | undefined,
  nodeClass: EC2NodeClass | undefined,
): Pick<NodeClaim, 'nodePoolHash' | 'nodeClassHash' | 'hashVersion'> {
  return {
    ...(nodePool ? { nodePoolHash: nodePoolTemplateHash(nodePool) } : {}),
    ...(nodeClass ? { nodeClassHash: nodeClassHash(nodeClass) } : {}),
    hashVersion: CLAIM_HASH_VERSION,
  };
}
