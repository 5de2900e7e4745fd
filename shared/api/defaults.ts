// Karpenter v1's defaults, filled in so the engine never has to guess: the same values the API server would write
// from the CRD schema when the objects are applied to a cluster.
import type {
  BlockDeviceMapping,
  Budget,
  EC2NodeClass,
  EC2NodeClassSpec,
  NodePool,
  NodePoolSpec,
  NodeSelectorRequirementWithMinValues,
} from './karpenter';
import type { Taint } from './kube';
import { ALIAS_FAMILIES, parseAlias } from './validate-nodeclass';
import { isWindowsFamily } from './windows';

export const DEFAULT_EXPIRE_AFTER = '720h';
export const DEFAULT_CONSOLIDATE_AFTER = '0s';
export const DEFAULT_CONSOLIDATION_POLICY = 'WhenEmptyOrUnderutilized' as const;
export const DEFAULT_BUDGET_NODES = '10%';
/** Karpenter orders NodePools without a weight as if their weight were 0. */
export const DEFAULT_WEIGHT = 0;
export const NODE_CLASS_GROUP = 'karpenter.k8s.aws';
export const NODE_CLASS_KIND = 'EC2NodeClass';

/** A NodePool as a user may write it: everything Karpenter defaults is optional. */
export interface NodePoolInput {
  apiVersion?: string;
  kind?: string;
  metadata: NodePool['metadata'];
  status?: NodePool['status'];
  spec: {
    template: {
      metadata?: NodePoolSpec['template']['metadata'];
      spec: {
        nodeClassRef: { group?: string; kind?: string; name: string };
        requirements?: NodeSelectorRequirementWithMinValues[];
        taints?: Taint[];
        startupTaints?: Taint[];
        expireAfter?: string;
        terminationGracePeriod?: string;
      };
    };
    disruption?: Partial<NodePoolSpec['disruption']>;
    limits?: Record<string, string | number>;
    weight?: number;
    replicas?: number;
  };
}

export function withNodePoolDefaults(input: NodePoolInput): NodePool {
  const t = input.spec.template;
  const d = input.spec.disruption ?? {};
  const budgets: Budget[] = d.budgets ? d.budgets.map((b) => ({ ...b })) : [{ nodes: DEFAULT_BUDGET_NODES }];
  const templateSpec: NodePoolSpec['template']['spec'] = {
    ...t.spec,
    nodeClassRef: {
      group: t.spec.nodeClassRef.group ?? NODE_CLASS_GROUP,
      kind: t.spec.nodeClassRef.kind ?? NODE_CLASS_KIND,
      name: t.spec.nodeClassRef.name,
    },
    requirements: (t.spec.requirements ?? []).map((r) => ({ ...r })),
    expireAfter: t.spec.expireAfter ?? DEFAULT_EXPIRE_AFTER,
  };
  const spec: NodePoolSpec = {
    template: { ...(t.metadata ? { metadata: t.metadata } : {}), spec: templateSpec },
    disruption: {
      consolidationPolicy: d.consolidationPolicy ?? DEFAULT_CONSOLIDATION_POLICY,
      consolidateAfter: d.consolidateAfter ?? DEFAULT_CONSOLIDATE_AFTER,
      budgets,
    },
    ...(input.spec.limits ? { limits: input.spec.limits } : {}),
    weight: input.spec.weight ?? DEFAULT_WEIGHT,
    ...(input.spec.replicas !== undefined && input.spec.replicas !== null ? { replicas: input.spec.replicas } : {}),
  };
  // A dump's status is kept: its Ready condition decides whether the pool is provisioned from.
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { ...input.metadata },
    spec,
    ...(input.status ? { status: input.status } : {}),
  };
}

export const DEFAULT_METADATA_OPTIONS: Required<NonNullable<EC2NodeClassSpec['metadataOptions']>> = {
  httpEndpoint: 'enabled',
  httpProtocolIPv6: 'disabled',
  httpPutResponseHopLimit: 1,
  httpTokens: 'required',
};

const ebs = (volumeSize: string): NonNullable<BlockDeviceMapping['ebs']> => ({
  volumeSize,
  volumeType: 'gp3',
  encrypted: true,
});

/** The block devices Karpenter gives each AMI family when the EC2NodeClass names none. */
export function defaultBlockDeviceMappings(family: EC2NodeClassSpec['amiFamily']): BlockDeviceMapping[] {
  switch (family) {
    case 'AL2':
    case 'AL2023':
      return [{ deviceName: '/dev/xvda', ebs: ebs('20Gi') }];
    case 'Bottlerocket':
      return [
        { deviceName: '/dev/xvda', ebs: ebs('4Gi') },
        { deviceName: '/dev/xvdb', ebs: ebs('20Gi') },
      ];
    case 'Windows2019':
    case 'Windows2022':
    case 'Windows2025':
      return [{ deviceName: '/dev/sda1', ebs: ebs('50Gi') }];
    default:
      return [];
  }
}

/** The device the kubelet's ephemeral storage lives on: the `rootVolume` one, else the AMI family's data device. */
export function ephemeralBlockDevice(spec: EC2NodeClassSpec): BlockDeviceMapping | undefined {
  const mappings = spec.blockDeviceMappings ?? [];
  const root = mappings.find((m) => m.rootVolume);
  if (root) return root;
  const device =
    spec.amiFamily === 'Bottlerocket'
      ? '/dev/xvdb'
      : isWindowsFamily(spec.amiFamily)
        ? '/dev/sda1'
        : spec.amiFamily === 'Custom'
          ? undefined
          : '/dev/xvda';
  return device ? mappings.find((m) => m.deviceName === device) : undefined;
}

/** The AMI family an EC2NodeClass uses: its amiFamily, else the family of its alias. */
export function amiFamilyOf(
  spec: Pick<EC2NodeClassSpec, 'amiFamily' | 'amiSelectorTerms'>,
): EC2NodeClassSpec['amiFamily'] {
  if (spec.amiFamily) return spec.amiFamily;
  for (const term of spec.amiSelectorTerms ?? []) {
    const parsed = term.alias ? parseAlias(term.alias) : undefined;
    const family = parsed ? ALIAS_FAMILIES[parsed.family] : undefined;
    if (family) return family;
  }
  return undefined;
}

export function withNodeClassDefaults(input: EC2NodeClass): EC2NodeClass {
  const amiFamily = amiFamilyOf(input.spec);
  const spec: EC2NodeClassSpec = {
    ...input.spec,
    ...(amiFamily ? { amiFamily } : {}),
    metadataOptions: { ...DEFAULT_METADATA_OPTIONS, ...input.spec.metadataOptions },
    blockDeviceMappings: input.spec.blockDeviceMappings ?? defaultBlockDeviceMappings(amiFamily),
  };
  return { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { ...input.metadata }, spec };
}
