// Scenario steps that change the cloud and the control plane under running nodes, the way drift happens in AWS:
// publish a new AMI for an alias (nodes on the old image drift), retag a subnet or security group (selector terms
// select different resources), change the cluster's Kubernetes version (aliases resolve to that version's images).
// Parsing (with field paths) and applying live together, one concept; the account itself is shared/sim/sim-account.ts.
import { expectObject, expectString, show } from '../../api/check';
import type { Problems } from '../../api/problems';
import { parseAlias } from '../../api/validate-nodeclass';
import type { Arch } from '../../catalog/types';
import type { SimAccount } from '../sim-account';

export const CLOUD_STEPS = ['publishAmi', 'retag', 'kubernetesVersion'] as const;
export type CloudStepName = (typeof CLOUD_STEPS)[number];

export type CloudStepAction =
  | { type: 'publishAmi'; family: string; version: string; kubernetesVersion?: string; id?: string; arch?: Arch }
  | { type: 'retag'; kind: 'subnet' | 'securityGroup'; id: string; tags: Record<string, string>; zone?: string }
  | { type: 'kubernetesVersion'; version: string };

const ALIAS_FAMILIES = ['al2023', 'al2', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'];
const KUBERNETES_VERSION = /^1\.\d{1,2}$/;

function kubernetesVersion(p: Problems, path: string, v: unknown, required: boolean): string | undefined {
  const text = typeof v === 'number' ? String(v) : expectString(p, path, v, required);
  if (text === undefined) return undefined;
  if (!KUBERNETES_VERSION.test(text)) {
    p.error(path, `must be a Kubernetes minor version such as "1.32" (quote it in YAML), got ${show(v)}`);
    return undefined;
  }
  return text;
}

function only(p: Problems, path: string, o: Record<string, unknown>, known: string[]): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) p.error(`${path}.${k}`, 'unknown field');
}

/** Parses one of CLOUD_STEPS at `path` (spec.steps[i].NAME). */
export function parseCloudStep(
  p: Problems,
  path: string,
  name: CloudStepName,
  v: unknown,
): CloudStepAction | undefined {
  if (name === 'kubernetesVersion') {
    const version = kubernetesVersion(p, path, v, true);
    return version ? { type: 'kubernetesVersion', version } : undefined;
  }
  const o = expectObject(p, path, v, true);
  if (!o) return undefined;
  if (name === 'publishAmi') {
    only(p, path, o, ['alias', 'kubernetesVersion', 'id', 'arch']);
    const text = expectString(p, `${path}.alias`, o.alias, true);
    const alias = text ? parseAlias(text) : undefined;
    if (text && (!alias || !ALIAS_FAMILIES.includes(alias.family.toLowerCase()))) {
      p.error(
        `${path}.alias`,
        `must be family@version with family one of ${ALIAS_FAMILIES.join(', ')}, got ${show(text)}`,
      );
      return undefined;
    }
    if (alias?.version === 'latest') {
      p.error(`${path}.alias`, 'names the release being published (al2023@v20260110), not @latest');
      return undefined;
    }
    const k8s =
      o.kubernetesVersion === undefined
        ? undefined
        : kubernetesVersion(p, `${path}.kubernetesVersion`, o.kubernetesVersion, false);
    const id = expectString(p, `${path}.id`, o.id);
    if (id !== undefined && !/^ami-[0-9a-z]+$/.test(id))
      p.error(`${path}.id`, `must look like ami-0123abcd, got ${show(id)}`);
    const arch = expectString(p, `${path}.arch`, o.arch);
    if (arch !== undefined && arch !== 'amd64' && arch !== 'arm64')
      p.error(`${path}.arch`, `must be amd64 or arm64, got ${show(arch)}`);
    if (!alias) return undefined;
    return {
      type: 'publishAmi',
      family: alias.family.toLowerCase(),
      version: alias.version,
      ...(k8s ? { kubernetesVersion: k8s } : {}),
      ...(id ? { id } : {}),
      ...(arch === 'amd64' || arch === 'arm64' ? { arch } : {}),
    };
  }
  only(p, path, o, ['subnet', 'securityGroup', 'zone', 'tags']);
  const subnet = expectString(p, `${path}.subnet`, o.subnet);
  const group = expectString(p, `${path}.securityGroup`, o.securityGroup);
  if ((subnet === undefined) === (group === undefined)) {
    p.error(path, 'give exactly one of subnet or securityGroup (its id)');
    return undefined;
  }
  const zone = expectString(p, `${path}.zone`, o.zone);
  if (group !== undefined && zone !== undefined) p.error(`${path}.zone`, 'only a subnet has a zone');
  if (subnet !== undefined && !subnet.startsWith('subnet-'))
    p.error(`${path}.subnet`, `must start with subnet-, got ${show(subnet)}`);
  if (group !== undefined && !group.startsWith('sg-'))
    p.error(`${path}.securityGroup`, `must start with sg-, got ${show(group)}`);
  if (subnet !== undefined && zone === undefined && !/^subnet-[a-z]{2}-[a-z]+-\d[a-z]$/.test(subnet)) {
    p.error(`${path}.zone`, `required: ${subnet} is not a default subnet-<zone>`);
  }
  const raw = expectObject(p, `${path}.tags`, o.tags, true);
  if (!raw) return undefined;
  const tags: Record<string, string> = {};
  for (const [k, value] of Object.entries(raw)) {
    if (typeof value === 'string') tags[k] = value;
    else p.error(`${path}.tags.${k}`, `must be a string, got ${show(value)}`);
  }
  return {
    type: 'retag',
    kind: subnet !== undefined ? 'subnet' : 'securityGroup',
    id: (subnet ?? group) as string,
    tags,
    ...(zone ? { zone } : {}),
  };
}

/** Applies the step to the simulated account. */
export function applyCloudStep(account: SimAccount, action: CloudStepAction): void {
  switch (action.type) {
    case 'publishAmi': {
      const { type: _step, ...ami } = action;
      account.publishAmi(ami);
      break;
    }
    case 'retag':
      account.retag(action.kind, action.id, action.tags, action.zone);
      break;
    case 'kubernetesVersion':
      account.kubernetesVersion = action.version;
      break;
  }
}
