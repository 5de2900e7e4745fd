// Launch templates: one per distinct launch configuration, named by a hash of it, created once and reused. The
// name is the cache key across Lambdas: whoever creates it first wins, everyone else gets AlreadyExists and uses it.

import { createHash } from 'node:crypto';
import {
  CreateLaunchTemplateCommand,
  DeleteLaunchTemplateCommand,
  type EC2Client,
  type LaunchTemplateBlockDeviceMappingRequest,
  paginateDescribeLaunchTemplates,
  type RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import type { BlockDeviceMapping, EC2NodeClassSpec } from '../../api/karpenter';
import { isWindowsFamily } from '../../api/windows';
import type { AmiFamily } from './amis';
import { TagKarplessCluster, toTagList } from './tags';

export interface LaunchConfig {
  cluster: string;
  amiId: string;
  securityGroupIds: string[];
  /** Plain text; base64-encoded when sent. */
  userData: string;
  blockDeviceMappings: BlockDeviceMapping[];
  metadataOptions: Required<NonNullable<EC2NodeClassSpec['metadataOptions']>>;
  instanceProfile: string;
  /** Tags for the template itself and the network interfaces it creates. */
  tags: Record<string, string>;
  associatePublicIPAddress?: boolean;
  detailedMonitoring?: boolean;
  /** Set only for classes that select capacity reservations (docs/aws.md, Capacity reservations): a reserved launch
   * targets one reservation and may use nothing else; an on-demand or spot one opts out of open reservations, whose
   * room Karpless counts on. */
  capacityReservation?:
    | { preference: 'capacity-reservations-only'; id: string; capacityBlock: boolean; interruptible?: boolean }
    | { preference: 'none' };
}

// Karpenter's defaults: IMDSv2 only, one hop (pods cannot reach the node's credentials), IPv4.
export const DEFAULT_METADATA_OPTIONS: LaunchConfig['metadataOptions'] = {
  httpEndpoint: 'enabled',
  httpProtocolIPv6: 'disabled',
  httpPutResponseHopLimit: 1,
  httpTokens: 'required',
};

const gp3 = (size: string) => ({ volumeSize: size, volumeType: 'gp3', encrypted: true, deleteOnTermination: true });

/** The root (and, for Bottlerocket, data) volumes an AMI family gets when the node class names none. */
export function defaultBlockDevices(family: AmiFamily): BlockDeviceMapping[] {
  if (family === 'Bottlerocket') {
    return [
      { deviceName: '/dev/xvda', ebs: gp3('4Gi') },
      { deviceName: '/dev/xvdb', rootVolume: true, ebs: gp3('20Gi') },
    ];
  }
  if (isWindowsFamily(family)) return [{ deviceName: '/dev/sda1', rootVolume: true, ebs: gp3('50Gi') }];
  return [{ deviceName: '/dev/xvda', rootVolume: true, ebs: gp3('20Gi') }];
}

/** "20Gi", "100G", "1Ti" → GiB, rounded up (EBS sizes are whole GiB). */
export function volumeSizeGiB(size: string): number {
  const m = /^(\d+(?:\.\d+)?)(Gi|G|Ti|T|Mi|M)?$/.exec(size.trim());
  if (!m) throw new Error(`blockDeviceMappings volumeSize "${size}": expected a quantity such as 20Gi`);
  const n = Number(m[1]);
  const unit = m[2] ?? 'Gi';
  const bytes = n * { Gi: 2 ** 30, G: 1e9, Ti: 2 ** 40, T: 1e12, Mi: 2 ** 20, M: 1e6 }[unit]!;
  return Math.ceil(bytes / 2 ** 30);
}

function blockDevices(mappings: BlockDeviceMapping[]): LaunchTemplateBlockDeviceMappingRequest[] {
  return mappings.map((m) => {
    const ebs = m.ebs ?? {};
    const out: LaunchTemplateBlockDeviceMappingRequest = { DeviceName: m.deviceName };
    out.Ebs = {
      ...(ebs.volumeSize ? { VolumeSize: volumeSizeGiB(ebs.volumeSize) } : {}),
      ...(ebs.volumeType ? { VolumeType: ebs.volumeType as 'gp3' } : {}),
      ...(ebs.iops !== undefined ? { Iops: ebs.iops } : {}),
      ...(ebs.throughput !== undefined ? { Throughput: ebs.throughput } : {}),
      ...(ebs.encrypted !== undefined ? { Encrypted: ebs.encrypted } : {}),
      ...(ebs.kmsKeyID ? { KmsKeyId: ebs.kmsKeyID } : {}),
      ...(ebs.snapshotID ? { SnapshotId: ebs.snapshotID } : {}),
      DeleteOnTermination: ebs.deleteOnTermination ?? true,
    };
    return out;
  });
}

export function launchTemplateData(c: LaunchConfig): RequestLaunchTemplateData {
  const data: RequestLaunchTemplateData = {
    ImageId: c.amiId,
    UserData: Buffer.from(c.userData, 'utf8').toString('base64'),
    IamInstanceProfile: { Name: c.instanceProfile },
    BlockDeviceMappings: blockDevices(c.blockDeviceMappings),
    MetadataOptions: {
      HttpEndpoint: c.metadataOptions.httpEndpoint,
      HttpProtocolIpv6: c.metadataOptions.httpProtocolIPv6,
      HttpPutResponseHopLimit: c.metadataOptions.httpPutResponseHopLimit,
      HttpTokens: c.metadataOptions.httpTokens,
    },
    Monitoring: { Enabled: c.detailedMonitoring ?? false },
    // Network interfaces cannot be tagged by an instant fleet; the template tags them.
    TagSpecifications: [{ ResourceType: 'network-interface', Tags: toTagList(c.tags) }],
  };
  const cr = c.capacityReservation;
  if (cr) {
    data.CapacityReservationSpecification =
      cr.preference === 'none'
        ? { CapacityReservationPreference: 'none' }
        : {
            CapacityReservationPreference: 'capacity-reservations-only',
            CapacityReservationTarget: { CapacityReservationId: cr.id },
          };
    if (cr.preference !== 'none' && cr.capacityBlock) data.InstanceMarketOptions = { MarketType: 'capacity-block' };
    else if (cr.preference !== 'none' && cr.interruptible)
      data.InstanceMarketOptions = { MarketType: 'interruptible-capacity-reservation' };
  }
  if (c.associatePublicIPAddress !== undefined) {
    // A public-IP choice needs an explicit interface; security groups then move onto it.
    data.NetworkInterfaces = [
      { DeviceIndex: 0, AssociatePublicIpAddress: c.associatePublicIPAddress, Groups: c.securityGroupIds },
    ];
  } else {
    data.SecurityGroupIds = c.securityGroupIds;
  }
  return data;
}

/** Canonical JSON (sorted keys) so the same configuration always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function launchTemplateName(c: LaunchConfig): string {
  const hash = createHash('sha256').update(canonical(c)).digest('hex').slice(0, 32);
  return `karpless/${c.cluster}/${hash}`;
}

const isAlreadyExists = (err: unknown) =>
  /AlreadyExists/.test(String((err as { name?: string; Code?: string } | undefined)?.name ?? ''));

/** Creates the template for `config` unless this container or another Lambda already did. Returns its name. */
export class LaunchTemplates {
  private readonly known = new Set<string>();
  /** When this container last handed out each template, so its own cleanup never deletes one a launch may use. */
  private readonly lastUsed = new Map<string, number>();

  constructor(
    private readonly ec2: EC2Client,
    private readonly now: () => number = Date.now,
  ) {}

  async ensure(config: LaunchConfig): Promise<string> {
    const name = launchTemplateName(config);
    this.lastUsed.set(name, this.now());
    if (this.known.has(name)) return name;
    try {
      await this.ec2.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: name,
          // Idempotent across retries of this very call.
          ClientToken: name.slice(-32),
          LaunchTemplateData: launchTemplateData(config),
          TagSpecifications: [{ ResourceType: 'launch-template', Tags: toTagList(config.tags) }],
        }),
      );
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    this.known.add(name);
    return name;
  }

  /** Forget a template (deleted outside Karpless, or found broken); the next ensure re-creates it. */
  forget(name: string): void {
    this.known.delete(name);
  }

  /** Names this container handed out at or after `since`. */
  usedSince(since: number): Set<string> {
    return new Set([...this.lastUsed].filter(([, at]) => at >= since).map(([name]) => name));
  }
}

/** What a cleanup rule sees of a template. */
export interface LaunchTemplateSummary {
  name: string;
  id?: string;
  createdAt?: Date;
}

/**
 * Deletes this cluster's launch templates that `keep` does not keep (a set of names, or a rule): templates of
 * configurations no longer in use, or all of them at teardown. Found by the cluster tag, so another cluster's
 * templates are never touched.
 */
export async function deleteUnusedLaunchTemplates(
  ec2: EC2Client,
  cluster: string,
  keep: ReadonlySet<string> | ((template: LaunchTemplateSummary) => boolean) = new Set(),
): Promise<string[]> {
  const kept = typeof keep === 'function' ? keep : (t: LaunchTemplateSummary) => keep.has(t.name);
  const deleted: string[] = [];
  for await (const summary of clusterLaunchTemplates(ec2, cluster)) {
    if (kept(summary)) continue;
    try {
      await ec2.send(new DeleteLaunchTemplateCommand({ LaunchTemplateName: summary.name }));
      deleted.push(summary.name);
    } catch (err) {
      if (!/NotFound/.test(String((err as { name?: string }).name))) throw err;
    }
  }
  return deleted;
}

/** The launch templates Karpless created for this cluster: tagged for it and named under its prefix. */
export async function* clusterLaunchTemplates(ec2: EC2Client, cluster: string): AsyncGenerator<LaunchTemplateSummary> {
  const filters = [{ Name: `tag:${TagKarplessCluster}`, Values: [cluster] }];
  for await (const page of paginateDescribeLaunchTemplates({ client: ec2 }, { Filters: filters })) {
    for (const lt of page.LaunchTemplates ?? []) {
      const name = lt.LaunchTemplateName;
      if (!name?.startsWith(`karpless/${cluster}/`)) continue;
      yield {
        name,
        ...(lt.LaunchTemplateId ? { id: lt.LaunchTemplateId } : {}),
        ...(lt.CreateTime ? { createdAt: lt.CreateTime } : {}),
      };
    }
  }
}
