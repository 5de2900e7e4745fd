// A small in-memory EC2/SSM/IAM behind aws-sdk-client-mock: enough state (subnets, groups, images, templates,
// fleets, instances) for the provider and the CloudProvider contract to run end to end, while every request stays
// inspectable for shape assertions.
import {
  CreateFleetCommand,
  type CreateFleetCommandInput,
  type CreateFleetCommandOutput,
  CreateLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  EC2Client,
  type Filter,
  type Instance,
  type RequestLaunchTemplateData,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  GetInstanceProfileCommand,
  IAMClient,
  type InstanceProfile,
} from '@aws-sdk/client-iam';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';

export const awsError = (name: string, message = name) => Object.assign(new Error(message), { name, Code: name });

type Tags = Record<string, string>;
interface Tagged {
  tags: Tags;
}
export interface FakeSubnet extends Tagged {
  id: string;
  zone: string;
  zoneId: string;
  free: number;
}
export interface FakeGroup extends Tagged {
  id: string;
  name: string;
}
export interface FakeImage extends Tagged {
  id: string;
  name: string;
  arch: 'x86_64' | 'arm64';
  created: string;
  owner: string;
}

function matches(
  r: Tagged & Record<string, unknown>,
  filters: Filter[] | undefined,
  fields: Record<string, string>,
): boolean {
  return (filters ?? []).every((f) => {
    const values = f.Values ?? [];
    const test = (v: string | undefined) =>
      v !== undefined &&
      values.some((p) =>
        new RegExp(
          `^${p
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
        ).test(v),
      );
    if (f.Name === 'tag-key') return values.some((k) => k in r.tags);
    if (f.Name?.startsWith('tag:')) return test(r.tags[f.Name.slice(4)]);
    const field = fields[f.Name ?? ''];
    if (field === undefined) return true; // filters the fake does not model do not narrow
    return test(r[field] as string | undefined);
  });
}

export interface FakeAwsOptions {
  subnets?: FakeSubnet[];
  groups?: FakeGroup[];
  images?: FakeImage[];
  ssm?: Record<string, string>;
}

export function defaultFakeAwsOptions(cluster = 'test-cluster'): Required<FakeAwsOptions> {
  const disc = { 'karpenter.sh/discovery': cluster };
  return {
    subnets: [
      { id: 'subnet-a1', zone: 'us-east-1a', zoneId: 'use1-az1', free: 100, tags: { ...disc, Name: 'private-a' } },
      { id: 'subnet-a2', zone: 'us-east-1a', zoneId: 'use1-az1', free: 4000, tags: { ...disc, Name: 'private-a-big' } },
      { id: 'subnet-b1', zone: 'us-east-1b', zoneId: 'use1-az2', free: 500, tags: { ...disc, Name: 'private-b' } },
      { id: 'subnet-c1', zone: 'us-east-1c', zoneId: 'use1-az4', free: 500, tags: { Name: 'public-c' } },
    ],
    groups: [
      { id: 'sg-node', name: 'eks-node', tags: disc },
      { id: 'sg-extra', name: 'extra', tags: { team: 'web' } },
    ],
    images: [
      {
        id: 'ami-amd-new',
        name: 'al2023-amd-2',
        arch: 'x86_64',
        created: '2025-02-01T00:00:00.000Z',
        owner: 'amazon',
        tags: {},
      },
      {
        id: 'ami-arm-new',
        name: 'al2023-arm-2',
        arch: 'arm64',
        created: '2025-02-01T00:00:00.000Z',
        owner: 'amazon',
        tags: {},
      },
      {
        id: 'ami-amd-old',
        name: 'al2023-amd-1',
        arch: 'x86_64',
        created: '2025-01-01T00:00:00.000Z',
        owner: 'amazon',
        tags: {},
      },
      {
        id: 'ami-amd-nvidia',
        name: 'al2023-amd-nvidia-2',
        arch: 'x86_64',
        created: '2025-02-01T00:00:00.000Z',
        owner: 'amazon',
        tags: {},
      },
      {
        id: 'ami-custom',
        name: 'my-golden-amd',
        arch: 'x86_64',
        created: '2025-03-01T00:00:00.000Z',
        owner: 'self',
        tags: { golden: 'yes' },
      },
    ],
    ssm: {
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id': 'ami-amd-new',
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id': 'ami-arm-new',
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id': 'ami-amd-nvidia',
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.31-v20250101/image_id':
        'ami-amd-old',
      '/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id': 'ami-amd-new',
    },
  };
}

export function fakeAws(o: FakeAwsOptions = {}) {
  const d = defaultFakeAwsOptions();
  const state = {
    subnets: o.subnets ?? d.subnets,
    groups: o.groups ?? d.groups,
    images: o.images ?? d.images,
    ssm: o.ssm ?? d.ssm,
    profiles: new Map<string, InstanceProfile>(),
    templates: new Map<string, unknown>(),
    fleets: new Map<string, CreateFleetCommandOutput>(),
    instances: new Map<string, Instance>(),
    /** "type/zone/capacityType" keys that answer InsufficientInstanceCapacity. */
    noCapacity: new Set<string>(),
    /** Errors the next CreateFleet call throws (whole-call failures), consumed one per call. */
    fleetThrows: [] as Error[],
    /** Fleet-level errors (in the response's Errors) added to the next CreateFleet, consumed once. */
    nextFleetErrors: [] as { code: string; message: string }[],
    nextId: 1,
    /** Runs at the start of each CreateFleet call (to change the world mid-launch). */
    onFleetCall: undefined as (() => void) | undefined,
  };
  const ec2 = mockClient(EC2Client);
  const ssm = mockClient(SSMClient);
  const iam = mockClient(IAMClient);

  ec2.on(DescribeSubnetsCommand).callsFake((input: { Filters?: Filter[] }) => ({
    Subnets: state.subnets
      .filter((s) => matches(s as never, input.Filters, { 'subnet-id': 'id' }))
      .map((s) => ({
        SubnetId: s.id,
        AvailabilityZone: s.zone,
        AvailabilityZoneId: s.zoneId,
        AvailableIpAddressCount: s.free,
        Tags: Object.entries(s.tags).map(([Key, Value]) => ({ Key, Value })),
      })),
  }));
  ec2.on(DescribeSecurityGroupsCommand).callsFake((input: { Filters?: Filter[] }) => ({
    SecurityGroups: state.groups
      .filter((g) => matches(g as never, input.Filters, { 'group-id': 'id', 'group-name': 'name' }))
      .map((g) => ({ GroupId: g.id, GroupName: g.name })),
  }));
  ec2.on(DescribeImagesCommand).callsFake((input: { Filters?: Filter[]; Owners?: string[] }) => ({
    Images: state.images
      .filter((i) => matches(i as never, input.Filters, { 'image-id': 'id', name: 'name' }))
      .filter((i) => !input.Owners || input.Owners.includes(i.owner))
      .map((i) => ({ ImageId: i.id, Name: i.name, Architecture: i.arch, CreationDate: i.created })),
  }));
  ec2.on(CreateLaunchTemplateCommand).callsFake((input: { LaunchTemplateName: string }) => {
    if (state.templates.has(input.LaunchTemplateName)) {
      throw awsError('InvalidLaunchTemplateName.AlreadyExistsException', 'Launch template name already in use.');
    }
    state.templates.set(input.LaunchTemplateName, input);
    return {
      LaunchTemplate: { LaunchTemplateName: input.LaunchTemplateName, LaunchTemplateId: `lt-${state.templates.size}` },
    };
  });
  ec2.on(CreateFleetCommand).callsFake((input: CreateFleetCommandInput) => {
    state.onFleetCall?.();
    const thrown = state.fleetThrows.shift();
    if (thrown) throw thrown;
    const token = input.ClientToken ?? '';
    const prior = state.fleets.get(token);
    if (prior) return prior;
    const capacityType = input.TargetCapacitySpecification?.DefaultTargetCapacityType ?? 'on-demand';
    const errors: NonNullable<CreateFleetCommandOutput['Errors']> = state.nextFleetErrors.splice(0).map((e) => ({
      ErrorCode: e.code,
      ErrorMessage: e.message,
      Lifecycle: capacityType as 'spot',
    }));
    let launched: NonNullable<CreateFleetCommandOutput['Instances']>[number] | undefined;
    if (errors.length === 0) {
      for (const cfg of input.LaunchTemplateConfigs ?? []) {
        for (const ov of cfg.Overrides ?? []) {
          if (launched) break;
          const key = `${ov.InstanceType}/${ov.AvailabilityZone}/${capacityType}`;
          if (state.noCapacity.has(key)) {
            errors.push({
              ErrorCode: 'InsufficientInstanceCapacity',
              ErrorMessage: `We currently do not have sufficient ${ov.InstanceType} capacity in ${ov.AvailabilityZone}.`,
              LaunchTemplateAndOverrides: {
                Overrides: { InstanceType: ov.InstanceType, AvailabilityZone: ov.AvailabilityZone },
              },
              Lifecycle: capacityType as 'spot',
            });
            continue;
          }
          const id = `i-${String(state.nextId++).padStart(17, '0')}`;
          const tags = input.TagSpecifications?.find((t) => t.ResourceType === 'instance')?.Tags ?? [];
          const template = state.templates.get(cfg.LaunchTemplateSpecification?.LaunchTemplateName ?? '') as
            | { LaunchTemplateData?: RequestLaunchTemplateData }
            | undefined;
          // As EC2 reports it: an instance launched through a template targeting a reservation is in it.
          const reservation = template?.LaunchTemplateData?.CapacityReservationSpecification;
          const reservationId = reservation?.CapacityReservationTarget?.CapacityReservationId;
          const block = template?.LaunchTemplateData?.InstanceMarketOptions?.MarketType === 'capacity-block';
          state.instances.set(id, {
            InstanceId: id,
            InstanceType: ov.InstanceType,
            Placement: { AvailabilityZone: ov.AvailabilityZone },
            SubnetId: ov.SubnetId,
            ImageId: template?.LaunchTemplateData?.ImageId,
            SecurityGroups: (template?.LaunchTemplateData?.SecurityGroupIds ?? []).map((GroupId) => ({ GroupId })),
            State: { Name: 'pending' },
            LaunchTime: new Date('2026-01-01T00:00:00Z'),
            ...(capacityType === 'spot' ? { InstanceLifecycle: 'spot' as const } : {}),
            ...(reservationId
              ? {
                  CapacityReservationId: reservationId,
                  CapacityReservationSpecification: {
                    CapacityReservationPreference: reservation?.CapacityReservationPreference,
                  },
                  ...(block ? { InstanceLifecycle: 'capacity-block' as const } : {}),
                }
              : {}),
            Tags: tags,
          });
          launched = {
            InstanceIds: [id],
            InstanceType: ov.InstanceType,
            Lifecycle: capacityType as 'spot',
            LaunchTemplateAndOverrides: {
              Overrides: {
                InstanceType: ov.InstanceType,
                AvailabilityZone: ov.AvailabilityZone,
                SubnetId: ov.SubnetId,
              },
            },
          };
        }
      }
    }
    const out = { $metadata: {}, FleetId: `fleet-${token}`, Instances: launched ? [launched] : [], Errors: errors };
    state.fleets.set(token, out);
    return out;
  });
  ec2.on(DescribeInstancesCommand).callsFake((input: { InstanceIds?: string[]; Filters?: Filter[] }) => {
    if (input.InstanceIds) {
      const found = input.InstanceIds.map((id) => state.instances.get(id));
      if (found.some((i) => !i))
        throw awsError('InvalidInstanceID.NotFound', `The instance ID '${input.InstanceIds[0]}' does not exist`);
      return { Reservations: [{ Instances: found as Instance[] }] };
    }
    const list = [...state.instances.values()].filter((i) => {
      const tags: Tags = Object.fromEntries((i.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
      return matches({ tags, state: i.State?.Name }, input.Filters, { 'instance-state-name': 'state' });
    });
    return { Reservations: list.length ? [{ Instances: list }] : [] };
  });
  ec2.on(TerminateInstancesCommand).callsFake((input: { InstanceIds: string[] }) => {
    for (const id of input.InstanceIds) {
      const i = state.instances.get(id);
      if (!i) throw awsError('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
      i.State = { Name: 'terminated' };
    }
    return { TerminatingInstances: input.InstanceIds.map((InstanceId) => ({ InstanceId })) };
  });
  ssm.on(GetParameterCommand).callsFake((input: { Name: string }) => {
    const v = state.ssm[input.Name];
    if (!v) throw awsError('ParameterNotFound');
    return { Parameter: { Name: input.Name, Value: v } };
  });
  iam.on(GetInstanceProfileCommand).callsFake((input: { InstanceProfileName: string }) => {
    const p = state.profiles.get(input.InstanceProfileName);
    if (!p) throw awsError('NoSuchEntityException');
    return { InstanceProfile: p };
  });
  iam
    .on(CreateInstanceProfileCommand)
    .callsFake((input: { InstanceProfileName: string; Path?: string; Tags?: { Key: string; Value: string }[] }) => {
      const p = {
        InstanceProfileName: input.InstanceProfileName,
        Path: input.Path,
        Roles: [],
        Tags: input.Tags,
      } as unknown as InstanceProfile;
      state.profiles.set(input.InstanceProfileName, p);
      return { InstanceProfile: p };
    });
  iam.on(AddRoleToInstanceProfileCommand).callsFake((input: { InstanceProfileName: string; RoleName: string }) => {
    const p = state.profiles.get(input.InstanceProfileName);
    if (!p) throw awsError('NoSuchEntityException');
    p.Roles = [{ RoleName: input.RoleName } as never];
    return {};
  });

  return {
    ec2,
    ssm,
    iam,
    state,
    ec2Client: new EC2Client({ region: 'us-east-1' }),
    ssmClient: new SSMClient({ region: 'us-east-1' }),
    iamClient: new IAMClient({ region: 'us-east-1' }),
    restore() {
      ec2.restore();
      ssm.restore();
      iam.restore();
    },
  };
}

export type FakeAws = ReturnType<typeof fakeAws>;
