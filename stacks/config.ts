// The typed per-cluster configuration, loaded from the YAML file named by the `clustersFile` context in cdk.json.
// Every problem names the file, the cluster and the field path, and all problems are reported together, so a user
// fixes the file in one pass instead of one `cdk synth` per typo.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { type DisruptionSettings, parseDisruptionSettings } from '../shared/disruption';
import { ValidationError } from '../shared/errors';
import { describe, isObject, type JsonObject } from '../shared/events';
import {
  type ConcurrencyConfig,
  type ConcurrencyQueue,
  DEFAULT_MAXIMUM,
  defaultReserved,
  MAXIMUM_RANGE,
  type ReservingFunction,
} from './concurrency';

export type EndpointAccess =
  | { access: 'public' }
  | { access: 'private'; vpcId: string; subnetIds: string[]; securityGroupIds: string[] };

export type ForwarderIdentity =
  | { identity: 'pod-identity'; namespace: string; serviceAccount: string }
  | { identity: 'irsa'; namespace: string; serviceAccount: string; oidcProviderArn: string };

export type Alarms = { email: string } | { snsTopicArn: string };

export interface ClusterConfig {
  /** The EKS cluster name; the stack is `karpless-<name>`. */
  name: string;
  account: string;
  region: string;
  kubernetesVersion: string;
  endpoint: EndpointAccess;
  /** EventBridge Scheduler expressions: rate(...) or cron(...). */
  sweepSchedule: string;
  gcSchedule: string;
  interruption: { rebalance: 'record' | 'interrupt' };
  /** Whether the lifecycle function binds nominated pods once their node is ready. Off by default: Karpless
   * nominates and kube-scheduler binds, as under Karpenter (docs/kubernetes.md, "Binding"). */
  bindPods: boolean;
  alarms: Alarms;
  logRetentionDays: number;
  /** Queue encryption: SQS-managed keys (default) or a customer-managed KMS key created by the stack. */
  queueEncryption: 'sqs-managed' | 'kms';
  forwarder: ForwarderIdentity;
  /** Extra tags for every resource of the stack. */
  tags: Record<string, string>;
  /** Disruption settings (docs/disruption.md, Settings); the functions read them from DISRUPTION_SETTINGS. */
  settings: DisruptionSettings;
  /** The NodePools Karpless owns during a cut-over from Karpenter (docs/deploy.md); absent: every NodePool. The
   * functions read them from OWNED_NODEPOOLS. */
  nodePools?: string[];
  /** The cluster's share of the region's Lambda concurrency (stacks/concurrency.ts; docs/aws.md, "Lambda
   * concurrency"). */
  concurrency: ConcurrencyConfig;
}

export const DEFAULTS = {
  sweepSchedule: 'rate(1 minute)',
  gcSchedule: 'rate(1 minute)',
  rebalance: 'record',
  bindPods: false,
  logRetentionDays: 30,
  queueEncryption: 'sqs-managed',
  forwarderNamespace: 'karpless',
  forwarderServiceAccount: 'karpless-forwarder',
} as const;

/** CloudWatch Logs accepts only these retention periods. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

// Letters, digits and hyphens: the name becomes part of the stack name (no underscores there) and of function
// names, which cap at 64 characters ("karpless-" + name + "-interruption").
const CLUSTER_NAME = /^[A-Za-z][A-Za-z0-9-]{0,39}$/;
const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;
const ACCOUNT = /^\d{12}$/;
const K8S_VERSION = /^1\.\d{1,2}$/;
const SCHEDULE = /^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\(.+\))$/;
const SUBNET = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP = /^sg-[0-9a-f]{8,17}$/;
const VPC = /^vpc-[0-9a-f]{8,17}$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const SNS_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const OIDC_ARN = /^arn:aws[a-z-]*:iam::\d{12}:oidc-provider\/.+$/;
const K8S_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const CLUSTER_KEYS = [
  'name',
  'account',
  'region',
  'kubernetesVersion',
  'endpoint',
  'sweep',
  'gc',
  'interruption',
  'bindPods',
  'alarms',
  'logRetentionDays',
  'queueEncryption',
  'forwarder',
  'tags',
  'settings',
  'nodePools',
  'concurrency',
];

/** Reads and validates the clusters file. Throws ValidationError listing every problem. */
export function loadClusters(file: string): ClusterConfig[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ValidationError([`${file}: cannot read the clusters file (${(error as Error).message})`]);
  }
  return parseClusters(text, file);
}

export function parseClusters(text: string, file: string): ClusterConfig[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new ValidationError([`${file}: not valid YAML (${(error as Error).message})`]);
  }
  return validateClusters(doc, file);
}

export function validateClusters(doc: unknown, file: string): ClusterConfig[] {
  const problems: string[] = [];
  if (!isObject(doc) || !Array.isArray(doc.clusters)) {
    throw new ValidationError([`${file}: expected a top-level "clusters:" list`]);
  }
  if (doc.clusters.length === 0) throw new ValidationError([`${file}: clusters: the list is empty`]);
  const configs: ClusterConfig[] = [];
  const fleet = fleetSizes(doc.clusters);
  doc.clusters.forEach((entry: unknown, i: number) => {
    const label = isObject(entry) && typeof entry.name === 'string' ? ` (${entry.name})` : '';
    const field = new FieldReader(`${file}: clusters[${i}]${label}`, problems);
    const config = readCluster(field, entry, fleet);
    if (config) configs.push(config);
  });
  const seen = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.name)) problems.push(`${file}: cluster name "${c.name}" appears twice; stack names must be unique`);
    seen.add(c.name);
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return configs;
}

class FieldReader {
  constructor(
    readonly where: string,
    readonly problems: string[],
  ) {}

  fail(path: string, message: string): undefined {
    this.problems.push(`${this.where}: ${path}: ${message}`);
    return undefined;
  }

  unknownKeys(obj: JsonObject, path: string, known: readonly string[]): void {
    for (const key of Object.keys(obj)) {
      if (!known.includes(key)) this.fail(join(path, key), `unknown field (known: ${known.join(', ')})`);
    }
  }

  object(obj: JsonObject, key: string, path: string, required: boolean): JsonObject | undefined {
    const value = obj[key];
    if (value === undefined || value === null) {
      return required ? this.fail(join(path, key), 'required section is missing') : undefined;
    }
    if (isObject(value)) return value;
    return this.fail(join(path, key), `expected a mapping, got ${describe(value)}`);
  }

  string(
    obj: JsonObject,
    key: string,
    path: string,
    pattern: RegExp,
    hint: string,
    fallback?: string,
  ): string | undefined {
    const value = obj[key];
    if (value === undefined || value === null) {
      return fallback ?? this.fail(join(path, key), `required (${hint})`);
    }
    if (typeof value !== 'string') {
      const quote = typeof value === 'number' ? '; quote it, YAML reads it as a number' : '';
      return this.fail(join(path, key), `expected a string (${hint}), got ${describe(value)}${quote}`);
    }
    if (!pattern.test(value)) return this.fail(join(path, key), `"${value}" is not valid (${hint})`);
    return value;
  }

  oneOf<T extends string>(
    obj: JsonObject,
    key: string,
    path: string,
    allowed: readonly T[],
    fallback: T,
  ): T | undefined {
    const value = obj[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    return this.fail(join(path, key), `expected one of ${allowed.join(', ')}, got ${describe(value)}`);
  }

  stringList(obj: JsonObject, key: string, path: string, pattern: RegExp, hint: string): string[] | undefined {
    const value = obj[key];
    if (!Array.isArray(value) || value.length === 0) {
      return this.fail(join(path, key), `required: a non-empty list of ${hint}`);
    }
    const ok = value.filter((v, i) => {
      if (typeof v === 'string' && pattern.test(v)) return true;
      this.fail(`${join(path, key)}[${i}]`, `expected ${hint}, got ${describe(v)}`);
      return false;
    });
    return ok.length === value.length ? (ok as string[]) : undefined;
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** How many clusters of the file share each account and region: their reservations share one pool. */
function fleetSizes(entries: unknown[]): (entry: JsonObject) => number {
  const key = (e: JsonObject) => `${String(e.account)}/${String(e.region)}`;
  const counts = new Map<string, number>();
  for (const e of entries) if (isObject(e)) counts.set(key(e), (counts.get(key(e)) ?? 0) + 1);
  return (e) => counts.get(key(e)) ?? 1;
}

function readCluster(f: FieldReader, entry: unknown, fleet: (e: JsonObject) => number): ClusterConfig | undefined {
  if (!isObject(entry)) return f.fail('(entry)', `expected a mapping, got ${describe(entry)}`);
  const before = f.problems.length;
  f.unknownKeys(entry, '', CLUSTER_KEYS);
  const name = f.string(
    entry,
    'name',
    '',
    CLUSTER_NAME,
    'letters, digits and hyphens, starting with a letter, at most 40',
  );
  const account = f.string(entry, 'account', '', ACCOUNT, 'a 12-digit AWS account id');
  const region = f.string(entry, 'region', '', REGION, 'an AWS region such as us-west-2');
  const kubernetesVersion =
    typeof entry.kubernetesVersion === 'number'
      ? f.fail('kubernetesVersion', `write it as a string ("${entry.kubernetesVersion}"): YAML reads 1.30 as 1.3`)
      : f.string(entry, 'kubernetesVersion', '', K8S_VERSION, 'a Kubernetes minor version such as "1.31"');
  const endpoint = readEndpoint(f, entry);
  const sweep = f.object(entry, 'sweep', '', false) ?? {};
  f.unknownKeys(sweep, 'sweep', ['schedule']);
  const sweepSchedule = f.string(
    sweep,
    'schedule',
    'sweep',
    SCHEDULE,
    'rate(...) or cron(...)',
    DEFAULTS.sweepSchedule,
  );
  const gc = f.object(entry, 'gc', '', false) ?? {};
  f.unknownKeys(gc, 'gc', ['schedule']);
  const gcSchedule = f.string(gc, 'schedule', 'gc', SCHEDULE, 'rate(...) or cron(...)', DEFAULTS.gcSchedule);
  const interruption = f.object(entry, 'interruption', '', false) ?? {};
  f.unknownKeys(interruption, 'interruption', ['rebalance']);
  const rebalance = f.oneOf(interruption, 'rebalance', 'interruption', ['record', 'interrupt'], DEFAULTS.rebalance);
  const bindPods = entry.bindPods ?? DEFAULTS.bindPods;
  if (typeof bindPods !== 'boolean') f.fail('bindPods', `expected true or false, got ${describe(bindPods)}`);
  const alarms = readAlarms(f, entry);
  const logRetentionDays = entry.logRetentionDays ?? DEFAULTS.logRetentionDays;
  if (!(LOG_RETENTION_DAYS as readonly unknown[]).includes(logRetentionDays)) {
    f.fail(
      'logRetentionDays',
      `${describe(logRetentionDays)} is not a CloudWatch retention (${LOG_RETENTION_DAYS.join(', ')})`,
    );
  }
  const queueEncryption = f.oneOf(entry, 'queueEncryption', '', ['sqs-managed', 'kms'], DEFAULTS.queueEncryption);
  const forwarder = readForwarder(f, entry);
  const tags = readTags(f, entry);
  const settings = parseDisruptionSettings(entry.settings, 'settings', (path, message) => f.fail(path, message));
  const nodePools = readNodePools(f, entry.nodePools);
  const concurrency = readConcurrency(f, entry, fleet(entry));
  if (f.problems.length > before) return undefined;
  return {
    name: name as string,
    account: account as string,
    region: region as string,
    kubernetesVersion: kubernetesVersion as string,
    endpoint: endpoint as EndpointAccess,
    sweepSchedule: sweepSchedule as string,
    gcSchedule: gcSchedule as string,
    interruption: { rebalance: rebalance as 'record' | 'interrupt' },
    bindPods: bindPods as boolean,
    alarms: alarms as Alarms,
    logRetentionDays: logRetentionDays as number,
    queueEncryption: queueEncryption as 'sqs-managed' | 'kms',
    settings,
    forwarder: forwarder as ForwarderIdentity,
    tags,
    ...(nodePools ? { nodePools } : {}),
    concurrency,
  };
}

/** `concurrency`: each event source's maximum, and the interruption path's reservations; a reservation is 0 or at
 * least its event source's maximum, so Lambda never throttles what its event source hands it. */
function readConcurrency(f: FieldReader, entry: JsonObject, fleetSize: number): ConcurrencyConfig {
  const section = f.object(entry, 'concurrency', '', false) ?? {};
  f.unknownKeys(section, 'concurrency', ['maximum', 'reserved']);
  const maximumOf = f.object(section, 'maximum', 'concurrency', false) ?? {};
  const reservedOf = f.object(section, 'reserved', 'concurrency', false) ?? {};
  f.unknownKeys(maximumOf, 'concurrency.maximum', Object.keys(DEFAULT_MAXIMUM));
  f.unknownKeys(reservedOf, 'concurrency.reserved', ['interruption', 'termination']);
  const maximum = { ...DEFAULT_MAXIMUM };
  for (const queue of Object.keys(DEFAULT_MAXIMUM) as ConcurrencyQueue[]) {
    const value = maximumOf[queue] ?? DEFAULT_MAXIMUM[queue];
    if (Number.isInteger(value) && Number(value) >= MAXIMUM_RANGE.min && Number(value) <= MAXIMUM_RANGE.max) {
      maximum[queue] = Number(value);
    } else {
      f.fail(`concurrency.maximum.${queue}`, `expected a whole number from 2 to 1000, got ${describe(value)}`);
    }
  }
  const reserved = defaultReserved(fleetSize, maximum);
  for (const fn of ['interruption', 'termination'] as ReservingFunction[]) {
    const value = reservedOf[fn];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || Number(value) < 0) {
      f.fail(`concurrency.reserved.${fn}`, `expected a whole number, 0 for none, got ${describe(value)}`);
    } else if (Number(value) > 0 && Number(value) < maximum[fn]) {
      f.fail(
        `concurrency.reserved.${fn}`,
        `${value} is below concurrency.maximum.${fn} (${maximum[fn]}): Lambda would throttle its event source; reserve 0 or at least ${maximum[fn]}`,
      );
    } else {
      reserved[fn] = Number(value);
    }
  }
  return { maximum, reserved };
}

/** `nodePools`: a non-empty list of distinct NodePool names, or absent (Karpless owns every NodePool). */
function readNodePools(f: FieldReader, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    f.fail(
      'nodePools',
      `expected a non-empty list of NodePool names, got ${Array.isArray(value) ? 'an empty list' : describe(value)}; omit it to own every NodePool`,
    );
    return undefined;
  }
  value.forEach((name, i) => {
    if (typeof name !== 'string' || !K8S_NAME.test(name))
      f.fail(`nodePools[${i}]`, `${describe(name)} is not a NodePool name`);
    else if (value.indexOf(name) !== i) f.fail(`nodePools[${i}]`, `"${name}" is listed twice`);
  });
  return value.filter((n): n is string => typeof n === 'string');
}

function readEndpoint(f: FieldReader, entry: JsonObject): EndpointAccess | undefined {
  const endpoint = f.object(entry, 'endpoint', '', false) ?? { access: 'public' };
  f.unknownKeys(endpoint, 'endpoint', ['access', 'vpcId', 'subnetIds', 'securityGroupIds']);
  const access = f.oneOf(endpoint, 'access', 'endpoint', ['public', 'private'], 'public');
  if (access !== 'private') {
    for (const key of ['vpcId', 'subnetIds', 'securityGroupIds']) {
      if (endpoint[key] !== undefined) f.fail(`endpoint.${key}`, 'only used with access: private');
    }
    return access ? { access } : undefined;
  }
  const vpcId = f.string(endpoint, 'vpcId', 'endpoint', VPC, 'a VPC id such as vpc-0123456789abcdef0');
  const subnetIds = f.stringList(endpoint, 'subnetIds', 'endpoint', SUBNET, 'subnet ids (subnet-…)');
  const securityGroupIds = f.stringList(
    endpoint,
    'securityGroupIds',
    'endpoint',
    SECURITY_GROUP,
    'security group ids (sg-…)',
  );
  if (!vpcId || !subnetIds || !securityGroupIds) return undefined;
  return { access, vpcId, subnetIds, securityGroupIds };
}

function readAlarms(f: FieldReader, entry: JsonObject): Alarms | undefined {
  const alarms = f.object(entry, 'alarms', '', true);
  if (!alarms) return undefined;
  f.unknownKeys(alarms, 'alarms', ['email', 'snsTopicArn']);
  if ((alarms.email === undefined) === (alarms.snsTopicArn === undefined)) {
    return f.fail('alarms', 'give exactly one of email or snsTopicArn');
  }
  if (alarms.email !== undefined) {
    const email = f.string(alarms, 'email', 'alarms', EMAIL, 'an email address');
    return email ? { email } : undefined;
  }
  const snsTopicArn = f.string(alarms, 'snsTopicArn', 'alarms', SNS_ARN, 'an SNS topic ARN');
  return snsTopicArn ? { snsTopicArn } : undefined;
}

function readForwarder(f: FieldReader, entry: JsonObject): ForwarderIdentity | undefined {
  const forwarder = f.object(entry, 'forwarder', '', false) ?? {};
  f.unknownKeys(forwarder, 'forwarder', ['identity', 'namespace', 'serviceAccount', 'oidcProviderArn']);
  const identity = f.oneOf(forwarder, 'identity', 'forwarder', ['pod-identity', 'irsa'], 'pod-identity');
  const hint = 'a Kubernetes name';
  const namespace = f.string(forwarder, 'namespace', 'forwarder', K8S_NAME, hint, DEFAULTS.forwarderNamespace);
  const serviceAccount = f.string(
    forwarder,
    'serviceAccount',
    'forwarder',
    K8S_NAME,
    hint,
    DEFAULTS.forwarderServiceAccount,
  );
  if (!identity || !namespace || !serviceAccount) return undefined;
  if (identity === 'pod-identity') {
    if (forwarder.oidcProviderArn !== undefined) f.fail('forwarder.oidcProviderArn', 'only used with identity: irsa');
    return { identity, namespace, serviceAccount };
  }
  const oidcProviderArn = f.string(
    forwarder,
    'oidcProviderArn',
    'forwarder',
    OIDC_ARN,
    'the cluster OIDC provider ARN',
  );
  return oidcProviderArn ? { identity, namespace, serviceAccount, oidcProviderArn } : undefined;
}

function readTags(f: FieldReader, entry: JsonObject): Record<string, string> {
  const tags = f.object(entry, 'tags', '', false) ?? {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tags)) {
    if (typeof value === 'string') out[key] = value;
    else f.fail(`tags.${key}`, `expected a string, got ${describe(value)}`);
  }
  return out;
}
