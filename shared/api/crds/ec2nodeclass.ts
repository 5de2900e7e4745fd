// The EC2NodeClass CRD (karpenter.k8s.aws/v1), written from our EC2NodeClass types, with Karpenter's rules.
import { DEFAULT_METADATA_OPTIONS } from '../defaults';
import type {
  AmiSelectorTerm,
  BlockDeviceMapping,
  CapacityReservationSelectorTerm,
  EC2NodeClassSpec,
  KubeletConfiguration,
  SelectorTerm,
} from '../karpenter';
import type { CapacityReservationStatus } from '../status';
import {
  ALIAS_FAMILIES,
  AMI_FAMILIES,
  EVICTION_SIGNALS,
  RESERVED_RESOURCES,
  RESTRICTED_TAGS,
  VOLUME_SIZE,
  VOLUME_TYPES,
} from '../validate-nodeclass';
import {
  AGE_COLUMN,
  arr,
  bool,
  type CustomResourceDefinition,
  DURATION_PATTERN,
  int,
  karpenterCRD,
  obj,
  type PropsOf,
  QUANTITY_PATTERN,
  READY_COLUMN,
  resourceSchema,
  type Schema,
  str,
  stringMap,
  type ValidationRule,
} from './schema';

const tags = (): Schema =>
  stringMap("Tags to match; '*' matches any value.", {
    maxProperties: 20,
    'x-kubernetes-validations': [
      { message: "empty tag keys or values aren't supported", rule: "self.all(k, k != '' && self[k] != '')" },
    ],
  });

const exclusive = (field: string, others: string[], list: string): ValidationRule => ({
  message: `'${field}' is mutually exclusive, cannot be set with a combination of other fields in ${list}`,
  rule: `!self.exists(x, has(x.${field}) && (${others.map((o) => `has(x.${o})`).join(' || ')}))`,
});

function selectorTerms(description: string, list: string, props: Record<string, Schema>): Schema {
  const fields = Object.keys(props);
  return arr(description, obj('A selector term; its fields are ANDed.', props), {
    minItems: 1,
    maxItems: 30,
    'x-kubernetes-validations': [
      {
        message: `expected at least one, got none, [${fields.map((f) => `'${f}'`).join(', ')}]`,
        rule: `self.all(x, ${fields.map((f) => `has(x.${f})`).join(' || ')})`,
      },
      exclusive(
        'id',
        fields.filter((f) => f !== 'id'),
        list,
      ),
    ],
  });
}

const subnetTerm: PropsOf<Pick<SelectorTerm, 'tags' | 'id'>> = {
  tags: tags(),
  id: str('The subnet id.', { pattern: '^subnet-[0-9a-z]+$' }),
};
const securityGroupTerm: PropsOf<SelectorTerm> = {
  tags: tags(),
  id: str('The security group id.', { pattern: '^sg-[0-9a-z]+$' }),
  name: str('The security group name (not its Name tag).'),
};
const capacityReservationTerm: PropsOf<CapacityReservationSelectorTerm> = {
  tags: tags(),
  id: str('The capacity reservation id.', { pattern: '^cr-[0-9a-z]+$' }),
  ownerID: str('The account that owns the reservation.', { pattern: '^[0-9]{12}$' }),
  instanceMatchCriteria: str('Selects reservations by how they match instances: open or targeted.', {
    enum: ['open', 'targeted'],
  }),
};
const capacityReservationStatus: PropsOf<CapacityReservationStatus> = {
  id: str('The capacity reservation id.', { pattern: '^cr-[0-9a-z]+$' }),
  instanceType: str('The instance type it reserves.'),
  availabilityZone: str('The zone it reserves capacity in.'),
  ownerID: str('The account that owns it.', { pattern: '^[0-9]{12}$' }),
  reservationType: str('default (an on-demand capacity reservation) or capacity-block.', {
    enum: ['default', 'capacity-block'],
    default: 'default',
  }),
  instanceMatchCriteria: str('open or targeted.', { enum: ['open', 'targeted'] }),
  state: str('expiring within 40 minutes of a capacity block’s end, else active.', {
    enum: ['active', 'expiring'],
    default: 'active',
  }),
  endTime: str('When the reservation ends.', { format: 'date-time' }),
  interruptible: bool('Indicates whether this capacity reservation is interruptible'),
};
/** The resolved status: capacityReservations typed as Karpenter's CRD types them, the rest kept as published. */
const statusSchema: Schema = {
  ...obj('EC2NodeClassStatus', {
    capacityReservations: arr(
      'The capacity reservations the capacityReservationSelectorTerms select.',
      obj('A capacity reservation.', capacityReservationStatus, {
        required: ['id', 'instanceType', 'availabilityZone', 'ownerID', 'instanceMatchCriteria'],
      }),
    ),
  }),
  'x-kubernetes-preserve-unknown-fields': true,
};
const aliasFamilies = Object.keys(ALIAS_FAMILIES);
const amiTerm: PropsOf<AmiSelectorTerm> = {
  alias: str('An EKS-optimized AMI as family@version, for example al2023@latest.', {
    maxLength: 30,
    'x-kubernetes-validations': [
      {
        message: "'alias' is improperly formatted, must match the format 'family@version'",
        rule: "self.matches('^[a-zA-Z0-9]*@.*$')",
      },
      {
        message: `family is not supported, must be one of the following: ${aliasFamilies.map((f) => `'${f}'`).join(', ')}`,
        rule: `self.find('^[^@]+') in [${aliasFamilies.map((f) => `'${f}'`).join(',')}]`,
      },
    ],
  }),
  tags: tags(),
  id: str('The AMI id.', { pattern: '^ami-[0-9a-z]+$' }),
  name: str('The AMI name.'),
  owner: str('The AMI owner: an account id, self, amazon or aws-marketplace.'),
  ssmParameter: str('An SSM parameter that holds the AMI id.'),
};

const reserved = (description: string, field: string): Schema =>
  stringMap(description, {
    additionalProperties: { type: 'string', pattern: QUANTITY_PATTERN },
    'x-kubernetes-validations': [
      {
        message: `valid keys for ${field} are [${RESERVED_RESOURCES.map((r) => `'${r}'`).join(',')}]`,
        rule: `self.all(x, ${RESERVED_RESOURCES.map((r) => `x=='${r}'`).join(' || ')})`,
      },
      {
        message: `${field} value cannot be a negative resource quantity`,
        rule: "self.all(x, !self[x].startsWith('-'))",
      },
    ],
  });
const signals = `[${EVICTION_SIGNALS.map((s) => `'${s}'`).join(',')}]`;
const eviction = (description: string, field: string, valuePattern?: string): Schema =>
  stringMap(description, {
    additionalProperties: { type: 'string', ...(valuePattern ? { pattern: valuePattern } : {}) },
    'x-kubernetes-validations': [
      { message: `valid keys for ${field} are ${signals}`, rule: `self.all(x, x in ${signals})` },
    ],
  });
const EVICTION_VALUE = `^((\\d{1,2}(\\.\\d{1,2})?|100(\\.0{1,2})?)%|${QUANTITY_PATTERN.slice(1, -1)})$`;

const kubeletProps: PropsOf<KubeletConfiguration> = {
  maxPods: int('Overrides the maximum number of pods per node.', { minimum: 0 }),
  podsPerCore: int('Pods allowed per core; never more than maxPods.', { minimum: 0 }),
  systemReserved: reserved('Resources reserved for the OS.', 'systemReserved'),
  kubeReserved: reserved('Resources reserved for Kubernetes components.', 'kubeReserved'),
  evictionHard: eviction('Hard eviction thresholds.', 'evictionHard', EVICTION_VALUE),
  evictionSoft: eviction('Soft eviction thresholds.', 'evictionSoft', EVICTION_VALUE),
  evictionSoftGracePeriod: eviction(
    'Grace periods of the soft thresholds.',
    'evictionSoftGracePeriod',
    DURATION_PATTERN,
  ),
  evictionMaxPodGracePeriod: int('Longest grace period for soft evictions, in seconds.'),
  imageGCHighThresholdPercent: int('Disk usage above which image garbage collection always runs.', {
    minimum: 0,
    maximum: 100,
  }),
  imageGCLowThresholdPercent: int('Disk usage image garbage collection frees down to.', { minimum: 0, maximum: 100 }),
  cpuCFSQuota: bool('Enforce CPU limits with CFS quota.'),
  clusterDNS: arr('Cluster DNS server addresses.', { type: 'string' }),
};

const ebsProps: PropsOf<NonNullable<BlockDeviceMapping['ebs']>> = {
  volumeSize: str('Size in Gi, G, Ti or T.', { pattern: VOLUME_SIZE.source }),
  volumeType: str('The EBS volume type.', { enum: [...VOLUME_TYPES] }),
  iops: int('Provisioned IOPS (gp3, io1, io2).', { minimum: 0 }),
  throughput: int('Throughput of a gp3 volume in MiB/s.', { minimum: 125, maximum: 1000 }),
  encrypted: bool('Encrypt the volume.'),
  kmsKeyID: str('The KMS key used for encryption.'),
  deleteOnTermination: bool('Delete the volume with the instance.'),
  snapshotID: str('The snapshot the volume starts from.'),
};
const blockDeviceProps: PropsOf<BlockDeviceMapping> = {
  deviceName: str('The device name, for example /dev/xvda.'),
  rootVolume: bool('This device holds the kubelet root directory (at most one).'),
  ebs: obj('EBS parameters.', ebsProps, {
    'x-kubernetes-validations': [
      { message: 'snapshotID or volumeSize must be defined', rule: 'has(self.snapshotID) || has(self.volumeSize)' },
    ],
  }),
};

const metadataOptions: PropsOf<NonNullable<EC2NodeClassSpec['metadataOptions']>> = {
  httpEndpoint: str('Instance metadata endpoint.', {
    enum: ['enabled', 'disabled'],
    default: DEFAULT_METADATA_OPTIONS.httpEndpoint,
  }),
  httpProtocolIPv6: str('IPv6 metadata endpoint.', {
    enum: ['enabled', 'disabled'],
    default: DEFAULT_METADATA_OPTIONS.httpProtocolIPv6,
  }),
  httpPutResponseHopLimit: int('Hop limit of metadata PUT responses.', {
    minimum: 1,
    maximum: 64,
    default: DEFAULT_METADATA_OPTIONS.httpPutResponseHopLimit,
  }),
  httpTokens: str('Whether IMDSv2 tokens are required.', {
    enum: ['required', 'optional'],
    default: DEFAULT_METADATA_OPTIONS.httpTokens,
  }),
};

const familyRule = (alias: string, family: string): ValidationRule => ({
  message: `if set, amiFamily must be '${family}' or 'Custom' when using an ${family} alias`,
  rule: `!has(self.amiFamily) || (self.amiSelectorTerms.exists(x, has(x.alias) && x.alias.find('^[^@]+') == '${alias}') ? (self.amiFamily == 'Custom' || self.amiFamily == '${family}') : true)`,
});

const specProps: PropsOf<EC2NodeClassSpec> = {
  amiFamily: str('The AMI family: user data format and default block devices. Optional with an alias.', {
    enum: [...AMI_FAMILIES],
  }),
  amiSelectorTerms: (() => {
    const s = selectorTerms('AMI selector terms, ORed.', 'amiSelectorTerms', amiTerm);
    s['x-kubernetes-validations'] = [
      ...(s['x-kubernetes-validations'] ?? []),
      exclusive('alias', ['id', 'tags', 'name', 'owner', 'ssmParameter'], 'amiSelectorTerms'),
      {
        message: "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
        rule: '!(self.exists(x, has(x.alias)) && self.size() != 1)',
      },
    ];
    return s;
  })(),
  subnetSelectorTerms: selectorTerms('Subnet selector terms, ORed.', 'subnetSelectorTerms', subnetTerm),
  securityGroupSelectorTerms: selectorTerms(
    'Security group selector terms, ORed.',
    'securityGroupSelectorTerms',
    securityGroupTerm,
  ),
  capacityReservationSelectorTerms: arr(
    'Capacity reservation selector terms, ORed: the on-demand capacity reservations and capacity blocks nodes of this class may launch into.',
    obj('A selector term; its fields are ANDed.', capacityReservationTerm),
    {
      maxItems: 30,
      'x-kubernetes-validations': [
        {
          message: "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']",
          rule: 'self.all(x, has(x.tags) || has(x.id) || has(x.instanceMatchCriteria))',
        },
        {
          message:
            "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
          rule: '!self.exists(x, has(x.id) && (has(x.tags) || has(x.ownerID) || has(x.instanceMatchCriteria)))',
        },
      ],
    },
  ),
  role: str('The IAM role of the nodes; Karpenter manages the instance profile. Exclusive with instanceProfile.', {
    minLength: 1,
  }),
  instanceProfile: str('An existing instance profile. Exclusive with role.', { minLength: 1 }),
  kubelet: obj('Kubelet settings of the nodes.', kubeletProps, {
    'x-kubernetes-validations': [
      {
        message: 'imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent',
        rule: 'has(self.imageGCHighThresholdPercent) && has(self.imageGCLowThresholdPercent) ? self.imageGCHighThresholdPercent > self.imageGCLowThresholdPercent : true',
      },
      {
        message: 'evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod',
        rule: 'has(self.evictionSoft) ? self.evictionSoft.all(e, has(self.evictionSoftGracePeriod) && (e in self.evictionSoftGracePeriod)) : true',
      },
      {
        message: 'evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft',
        rule: 'has(self.evictionSoftGracePeriod) ? self.evictionSoftGracePeriod.all(e, has(self.evictionSoft) && (e in self.evictionSoft)) : true',
      },
    ],
  }),
  userData: str('User data merged into the AMI family’s bootstrap.'),
  tags: stringMap('Tags applied to instances, volumes and launch templates.', {
    'x-kubernetes-validations': [
      { message: "empty tag keys aren't supported", rule: "self.all(k, k != '')" },
      {
        message: 'tag contains a restricted tag matching kubernetes.io/cluster/',
        rule: "self.all(k, !k.startsWith('kubernetes.io/cluster'))",
      },
      ...RESTRICTED_TAGS.map((t) => ({
        message: `tag contains a restricted tag matching ${t}`,
        rule: `self.all(k, k != '${t}')`,
      })),
    ],
  }),
  blockDeviceMappings: arr('Block devices of the nodes.', obj('A block device.', blockDeviceProps), {
    maxItems: 50,
    'x-kubernetes-validations': [
      {
        message: 'must have only one blockDeviceMappings with rootVolume',
        rule: 'self.filter(x, has(x.rootVolume) ? x.rootVolume == true : false).size() <= 1',
      },
    ],
  }),
  metadataOptions: obj('Instance metadata service options.', metadataOptions, {
    default: { ...DEFAULT_METADATA_OPTIONS },
  }),
  associatePublicIPAddress: bool('Assign public IP addresses.'),
  detailedMonitoring: bool('Enable detailed CloudWatch monitoring.'),
  instanceStorePolicy: str('How instance-store disks are used.', { enum: ['RAID0'] }),
  context: str('The reserved CreateFleet Context field.'),
};

export function ec2NodeClassCRD(): CustomResourceDefinition {
  return karpenterCRD({
    group: 'karpenter.k8s.aws',
    kind: 'EC2NodeClass',
    plural: 'ec2nodeclasses',
    shortNames: ['ec2nc', 'ec2ncs'],
    version: 'v1',
    // Karpenter v1's columns, in its order; Ready reads the status Karpless publishes.
    columns: [READY_COLUMN, AGE_COLUMN, { name: 'Role', type: 'string', jsonPath: '.spec.role', priority: 1 }],
    schema: resourceSchema(
      'EC2NodeClass holds the AWS settings of the nodes a NodePool launches.',
      obj('EC2NodeClassSpec', specProps, {
        required: ['amiSelectorTerms', 'subnetSelectorTerms', 'securityGroupSelectorTerms'],
        'x-kubernetes-validations': [
          {
            message: "must specify exactly one of ['role', 'instanceProfile']",
            rule: '(has(self.role) && !has(self.instanceProfile)) || (!has(self.role) && has(self.instanceProfile))',
          },
          ...Object.entries(ALIAS_FAMILIES).map(([alias, family]) => familyRule(alias, family)),
          {
            message: 'must specify amiFamily if amiSelectorTerms does not contain an alias',
            rule: 'self.amiSelectorTerms.exists(x, has(x.alias)) ? true : has(self.amiFamily)',
          },
        ],
      }),
      statusSchema,
    ),
  });
}
