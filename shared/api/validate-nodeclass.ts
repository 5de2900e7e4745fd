// Validation of a karpenter.k8s.aws/v1 EC2NodeClass, with the rules of Karpenter's CRD.
import {
  expectArray,
  expectBool,
  expectDuration,
  expectEnum,
  expectInt,
  expectObject,
  expectQuantity,
  expectString,
  expectStringMap,
  type Obj,
  show,
} from './check';
import { at, key, type Problems } from './problems';
import { parseQuantity } from './quantity';
import { validateReservationTerms } from './validate-reservations';

export const AMI_FAMILIES = [
  'AL2',
  'AL2023',
  'Bottlerocket',
  'Custom',
  'Windows2019',
  'Windows2022',
  'Windows2025',
] as const;
export type AmiFamily = (typeof AMI_FAMILIES)[number];
/** Alias family (lower case, as in `al2023@latest`) → amiFamily. */
export const ALIAS_FAMILIES: Readonly<Record<string, AmiFamily>> = {
  al2: 'AL2',
  al2023: 'AL2023',
  bottlerocket: 'Bottlerocket',
  windows2019: 'Windows2019',
  windows2022: 'Windows2022',
  windows2025: 'Windows2025',
};
export const RESERVED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pid'] as const;
export const EVICTION_SIGNALS = [
  'memory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
] as const;
export const VOLUME_TYPES = ['standard', 'io1', 'io2', 'gp2', 'sc1', 'st1', 'gp3'] as const;
export const RESTRICTED_TAGS = [
  'karpenter.sh/nodepool',
  'karpenter.sh/managed-by',
  'karpenter.sh/nodeclaim',
  'karpenter.k8s.aws/ec2nodeclass',
] as const;
export const VOLUME_SIZE = /^\d+(Gi|G|Ti|T)$/;
const EVICTION_VALUE = /^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%)$/;

/** Splits an alias into its family and version; undefined when it is not `family@version`. */
export function parseAlias(alias: string): { family: string; version: string } | undefined {
  const m = /^([a-zA-Z0-9]*)@(.+)$/.exec(alias);
  return m ? { family: m[1] as string, version: m[2] as string } : undefined;
}

export function validateNodeClass(p: Problems, doc: Obj): void {
  const spec = expectObject(p, 'spec', doc.spec, true);
  if (!spec) return;
  validateSelectorTerms(p, 'spec.subnetSelectorTerms', spec.subnetSelectorTerms, ['tags', 'id'], /^subnet-[0-9a-z]+$/);
  validateSelectorTerms(
    p,
    'spec.securityGroupSelectorTerms',
    spec.securityGroupSelectorTerms,
    ['tags', 'id', 'name'],
    /^sg-[0-9a-z]+$/,
  );
  const aliasFamily = validateAmiTerms(p, spec.amiSelectorTerms);
  const amiFamily = expectEnum(p, 'spec.amiFamily', spec.amiFamily, AMI_FAMILIES);
  if (aliasFamily === null && spec.amiFamily === undefined) {
    p.error('spec.amiFamily', 'required when amiSelectorTerms has no alias');
  }
  if (aliasFamily && amiFamily && amiFamily !== 'Custom' && amiFamily !== aliasFamily) {
    p.error('spec.amiFamily', `must be ${aliasFamily} or Custom with the alias in amiSelectorTerms, got ${amiFamily}`);
  }
  const role = expectString(p, 'spec.role', spec.role);
  const profile = expectString(p, 'spec.instanceProfile', spec.instanceProfile);
  if (role === '') p.error('spec.role', 'must not be empty');
  if (profile === '') p.error('spec.instanceProfile', 'must not be empty');
  if (role !== undefined && profile !== undefined) {
    p.error('spec', 'must specify exactly one of role, instanceProfile (both are set)');
  } else if (
    role === undefined &&
    profile === undefined &&
    spec.role === undefined &&
    spec.instanceProfile === undefined
  ) {
    p.warn('spec', 'neither role nor instanceProfile is set; Karpenter requires exactly one before nodes can launch');
  }
  validateReservationTerms(p, spec.capacityReservationSelectorTerms);
  const kubelet = expectObject(p, 'spec.kubelet', spec.kubelet);
  if (kubelet) validateKubelet(p, kubelet);
  validateBlockDevices(p, spec.blockDeviceMappings);
  const md = expectObject(p, 'spec.metadataOptions', spec.metadataOptions);
  if (md) {
    expectEnum(p, 'spec.metadataOptions.httpEndpoint', md.httpEndpoint, ['enabled', 'disabled'] as const);
    expectEnum(p, 'spec.metadataOptions.httpProtocolIPv6', md.httpProtocolIPv6, ['enabled', 'disabled'] as const);
    expectInt(p, 'spec.metadataOptions.httpPutResponseHopLimit', md.httpPutResponseHopLimit, { min: 1, max: 64 });
    expectEnum(p, 'spec.metadataOptions.httpTokens', md.httpTokens, ['required', 'optional'] as const);
  }
  const tags = expectStringMap(p, 'spec.tags', spec.tags);
  for (const k of Object.keys(tags ?? {})) {
    const path = at('spec.tags', `[${JSON.stringify(k)}]`);
    if (k === '') p.error(path, 'tag keys must not be empty');
    else if (k.startsWith('kubernetes.io/cluster')) p.error(path, 'tag kubernetes.io/cluster/* is restricted');
    else if ((RESTRICTED_TAGS as readonly string[]).includes(k)) p.error(path, `tag "${k}" is restricted`);
  }
  expectString(p, 'spec.userData', spec.userData);
  expectString(p, 'spec.context', spec.context);
  expectBool(p, 'spec.associatePublicIPAddress', spec.associatePublicIPAddress);
  expectBool(p, 'spec.detailedMonitoring', spec.detailedMonitoring);
  expectEnum(p, 'spec.instanceStorePolicy', spec.instanceStorePolicy, ['RAID0'] as const);
}

function validateSelectorTerms(p: Problems, path: string, v: unknown, fields: string[], idPattern: RegExp): void {
  const terms = expectArray(p, path, v, true);
  if (!terms) return;
  if (terms.length === 0) p.error(path, 'must have at least one term');
  if (terms.length > 30) p.error(path, `must have at most 30 terms, got ${terms.length}`);
  terms.forEach((item, i) => {
    const tp = at(path, i);
    const term = expectObject(p, tp, item, true);
    if (!term) return;
    checkTermFields(p, tp, term, fields);
    const id = expectString(p, at(tp, 'id'), term.id);
    if (id !== undefined && !idPattern.test(id))
      p.error(at(tp, 'id'), `${show(id)} does not match ${idPattern.source}`);
    if (id !== undefined && fields.some((f) => f !== 'id' && term[f] !== undefined)) {
      p.error(tp, "'id' is mutually exclusive, cannot be set with a combination of other fields");
    }
    if (fields.includes('name')) expectString(p, at(tp, 'name'), term.name);
  });
}

function checkTermFields(p: Problems, tp: string, term: Obj, fields: string[]): void {
  for (const k of Object.keys(term)) {
    if (!fields.includes(k)) p.error(at(tp, k), `is not a selector field; use one of ${fields.join(', ')}`);
  }
  if (!fields.some((f) => term[f] !== undefined)) p.error(tp, `expected at least one of ${fields.join(', ')}`);
  const tags = expectStringMap(p, at(tp, 'tags'), term.tags);
  if (tags) {
    for (const [k, v] of Object.entries(tags)) {
      if (k === '' || v === '')
        p.error(at(tp, 'tags', `[${JSON.stringify(k)}]`), "empty tag keys or values aren't supported");
    }
  }
}

/** Returns the alias's AMI family, null when there is no alias, or undefined when the terms are invalid. */
function validateAmiTerms(p: Problems, v: unknown): AmiFamily | null | undefined {
  const path = 'spec.amiSelectorTerms';
  const terms = expectArray(p, path, v, true);
  if (!terms) return undefined;
  if (terms.length === 0) p.error(path, 'must have at least one term');
  if (terms.length > 30) p.error(path, `must have at most 30 terms, got ${terms.length}`);
  let family: AmiFamily | null | undefined = null;
  terms.forEach((item, i) => {
    const tp = at(path, i);
    const term = expectObject(p, tp, item, true);
    if (!term) return;
    checkTermFields(p, tp, term, ['alias', 'tags', 'id', 'name', 'owner', 'ssmParameter']);
    const id = expectString(p, at(tp, 'id'), term.id);
    if (id !== undefined && !/^ami-[0-9a-z]+$/.test(id))
      p.error(at(tp, 'id'), `${show(id)} does not match ami-[0-9a-z]+`);
    if (id !== undefined && ['alias', 'tags', 'name', 'owner', 'ssmParameter'].some((f) => term[f] !== undefined)) {
      p.error(tp, "'id' is mutually exclusive, cannot be set with a combination of other fields");
    }
    expectString(p, at(tp, 'name'), term.name);
    expectString(p, at(tp, 'owner'), term.owner);
    expectString(p, at(tp, 'ssmParameter'), term.ssmParameter);
    const alias = expectString(p, at(tp, 'alias'), term.alias);
    if (alias === undefined) return;
    if (['id', 'tags', 'name', 'owner', 'ssmParameter'].some((f) => term[f] !== undefined)) {
      p.error(tp, "'alias' is mutually exclusive, cannot be set with a combination of other fields");
    }
    if (terms.length !== 1) p.error(path, "'alias' is mutually exclusive, cannot be set with other amiSelectorTerms");
    const parsed = parseAlias(alias);
    if (!parsed) {
      p.error(at(tp, 'alias'), `${show(alias)} must have the format family@version (for example al2023@latest)`);
      family = undefined;
      return;
    }
    const known = ALIAS_FAMILIES[parsed.family];
    if (!known) {
      p.error(at(tp, 'alias'), `family ${show(parsed.family)} is not one of ${Object.keys(ALIAS_FAMILIES).join(', ')}`);
      family = undefined;
      return;
    }
    if (known.startsWith('Windows') && parsed.version !== 'latest') {
      p.error(at(tp, 'alias'), `${show(alias)}: Windows families support only the version latest`);
    }
    family = known;
  });
  return family;
}

/** A kubelet map keyed by a fixed set of names (resources, eviction signals): each key must be one of `names`, and
 * `checkValue` checks the value under each known key. */
function checkNamedMap(
  p: Problems,
  path: string,
  v: unknown,
  names: readonly string[],
  checkValue: (path: string, value: unknown) => void,
): void {
  const m = expectObject(p, path, v);
  for (const [name, value] of Object.entries(m ?? {})) {
    const entry = at(path, key(name));
    if (!names.includes(name)) p.error(entry, `${show(name)} is not one of ${names.join(', ')}`);
    else checkValue(entry, value);
  }
}

function validateKubelet(p: Problems, k: Obj): void {
  const base = 'spec.kubelet';
  expectInt(p, at(base, 'maxPods'), k.maxPods, { min: 0 });
  expectInt(p, at(base, 'podsPerCore'), k.podsPerCore, { min: 0 });
  for (const field of ['systemReserved', 'kubeReserved'] as const) {
    checkNamedMap(p, at(base, field), k[field], RESERVED_RESOURCES, (path, q) => {
      if (typeof q !== 'string') p.error(path, `must be a quantity string, got ${show(q)}`);
      else expectQuantity(p, path, q);
    });
  }
  for (const field of ['evictionHard', 'evictionSoft'] as const) {
    checkNamedMap(p, at(base, field), k[field], EVICTION_SIGNALS, (path, q) => {
      if (typeof q !== 'string') p.error(path, `must be a string such as 100Mi or 10%, got ${show(q)}`);
      else if (!EVICTION_VALUE.test(q)) expectQuantity(p, path, q);
    });
  }
  checkNamedMap(p, at(base, 'evictionSoftGracePeriod'), k.evictionSoftGracePeriod, EVICTION_SIGNALS, (path, d) =>
    expectDuration(p, path, d, false),
  );
  const soft = isPlain(k.evictionSoft) ? Object.keys(k.evictionSoft) : [];
  const graceKeys = isPlain(k.evictionSoftGracePeriod) ? Object.keys(k.evictionSoftGracePeriod) : [];
  for (const s of soft) {
    if (!graceKeys.includes(s))
      p.error(at(base, 'evictionSoft', `[${JSON.stringify(s)}]`), 'has no matching evictionSoftGracePeriod');
  }
  for (const s of graceKeys) {
    if (!soft.includes(s))
      p.error(at(base, 'evictionSoftGracePeriod', `[${JSON.stringify(s)}]`), 'has no matching evictionSoft');
  }
  expectInt(p, at(base, 'evictionMaxPodGracePeriod'), k.evictionMaxPodGracePeriod);
  const high = expectInt(p, at(base, 'imageGCHighThresholdPercent'), k.imageGCHighThresholdPercent, {
    min: 0,
    max: 100,
  });
  const low = expectInt(p, at(base, 'imageGCLowThresholdPercent'), k.imageGCLowThresholdPercent, { min: 0, max: 100 });
  if (high !== undefined && low !== undefined && high <= low) {
    p.error(
      at(base, 'imageGCHighThresholdPercent'),
      `must be greater than imageGCLowThresholdPercent (${low}), got ${high}`,
    );
  }
  expectBool(p, at(base, 'cpuCFSQuota'), k.cpuCFSQuota);
  const dns = expectArray(p, at(base, 'clusterDNS'), k.clusterDNS);
  dns?.forEach((ip, i) => {
    expectString(p, at(base, 'clusterDNS', i), ip, true);
  });
}

const isPlain = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function validateBlockDevices(p: Problems, v: unknown): void {
  const path = 'spec.blockDeviceMappings';
  const list = expectArray(p, path, v);
  if (!list) return;
  if (list.length > 50) p.error(path, `must have at most 50 mappings, got ${list.length}`);
  let roots = 0;
  list.forEach((item, i) => {
    const bp = at(path, i);
    const b = expectObject(p, bp, item, true);
    if (!b) return;
    expectString(p, at(bp, 'deviceName'), b.deviceName, true);
    if (expectBool(p, at(bp, 'rootVolume'), b.rootVolume)) roots++;
    const ebs = expectObject(p, at(bp, 'ebs'), b.ebs);
    if (!ebs) return;
    const ep = at(bp, 'ebs');
    const size = ebs.volumeSize;
    if (size !== undefined) {
      if (typeof size !== 'string' || !VOLUME_SIZE.test(size)) {
        p.error(at(ep, 'volumeSize'), `${show(size)} must be a size in Gi, G, Ti or T (for example 100Gi)`);
      } else if (parseQuantity(size) > 64 * 2 ** 40) {
        p.error(at(ep, 'volumeSize'), `${show(size)} is larger than the EBS maximum of 64Ti`);
      }
    }
    if (size === undefined && ebs.snapshotID === undefined) p.error(ep, 'snapshotID or volumeSize must be defined');
    expectEnum(p, at(ep, 'volumeType'), ebs.volumeType, VOLUME_TYPES);
    expectInt(p, at(ep, 'iops'), ebs.iops, { min: 0 });
    expectInt(p, at(ep, 'throughput'), ebs.throughput, { min: 125, max: 1000 });
    expectBool(p, at(ep, 'encrypted'), ebs.encrypted);
    expectBool(p, at(ep, 'deleteOnTermination'), ebs.deleteOnTermination);
    expectString(p, at(ep, 'kmsKeyID'), ebs.kmsKeyID);
    expectString(p, at(ep, 'snapshotID'), ebs.snapshotID);
  });
  if (roots > 1) p.error(path, 'must have only one blockDeviceMappings with rootVolume');
}
