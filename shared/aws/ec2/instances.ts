// This cluster's instances: found by the cluster tag (for garbage collection, status and drift), terminated by id.
import {
  DescribeInstancesCommand,
  type EC2Client,
  type Instance,
  paginateDescribeInstances,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import type { CapacityType, NodeOS } from '../../catalog/types';
import type { CloudInstance, InstanceState } from '../../ports';
import { INSTANCE_STATES } from '../../ports';
import { isNotFound, withThrottleRetry } from './errors';
import { TagKarplessCluster } from './tags';

/** $/h of a running instance; Windows instances pay the licence-included price. */
export type PriceOf = (
  instanceType: string,
  zone: string,
  capacityType: CapacityType,
  os?: NodeOS,
) => number | undefined;

const STATES: ReadonlySet<string> = new Set(INSTANCE_STATES);

/** EC2 reports Platform "windows" for Windows instances (the SDK's enum spells it "Windows") and nothing for Linux. */
const osOf = (i: Instance): NodeOS => (String(i.Platform ?? '').toLowerCase() === 'windows' ? 'windows' : 'linux');

export function toCloudInstance(i: Instance, priceOf?: PriceOf): CloudInstance | undefined {
  if (!i.InstanceId) return undefined;
  const zone = i.Placement?.AvailabilityZone ?? '';
  // As Karpenter reads it: an instance EC2 still reports in a reservation it was launched to target
  // (capacity-reservations-only) is reserved; once the reservation ends or is cancelled, EC2 drops the id and the
  // instance runs on as on-demand.
  const reservationId =
    i.CapacityReservationSpecification?.CapacityReservationPreference === 'capacity-reservations-only'
      ? i.CapacityReservationId
      : undefined;
  const capacityType: CapacityType = i.InstanceLifecycle === 'spot' ? 'spot' : reservationId ? 'reserved' : 'on-demand';
  const tags: Record<string, string> = {};
  for (const t of i.Tags ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
  const type = i.InstanceType ?? '';
  const state = i.State?.Name ?? 'pending';
  const out: CloudInstance = {
    instanceId: i.InstanceId,
    providerID: `aws:///${zone}/${i.InstanceId}`,
    instanceType: type,
    zone,
    capacityType,
    pricePerHour: priceOf?.(type, zone, capacityType, osOf(i)) ?? 0,
    state: (STATES.has(state) ? state : 'pending') as InstanceState,
    launchedAt: (i.LaunchTime ?? new Date(0)).toISOString(),
    tags,
  };
  if (reservationId) {
    const lifecycle = String(i.InstanceLifecycle);
    const type = lifecycle === 'capacity-block' ? 'capacity-block' : 'default';
    out.capacityReservation = {
      id: reservationId,
      type,
      ...(lifecycle === 'interruptible-capacity-reservation' ? { interruptible: true } : {}),
    };
  }
  if (i.ImageId) out.imageId = i.ImageId;
  if (i.SubnetId) out.subnetId = i.SubnetId;
  const groups = (i.SecurityGroups ?? []).flatMap((g) => (g.GroupId ? [g.GroupId] : []));
  if (groups.length) out.securityGroupIds = groups.sort();
  return out;
}

/** Live (not terminated) instances carrying this cluster's tag, optionally narrowed by more tags. */
export async function listClusterInstances(
  ec2: EC2Client,
  cluster: string,
  o: { tags?: Record<string, string>; priceOf?: PriceOf } = {},
): Promise<CloudInstance[]> {
  const filters = [
    { Name: `tag:${TagKarplessCluster}`, Values: [cluster] },
    { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
    ...Object.entries(o.tags ?? {}).map(([k, v]) => ({ Name: `tag:${k}`, Values: [v] })),
  ];
  const out: CloudInstance[] = [];
  for await (const page of paginateDescribeInstances({ client: ec2 }, { Filters: filters })) {
    for (const r of page.Reservations ?? []) {
      for (const i of r.Instances ?? []) {
        const c = toCloudInstance(i, o.priceOf);
        if (c) out.push(c);
      }
    }
  }
  return out.sort((a, b) => a.instanceId.localeCompare(b.instanceId));
}

export async function getInstance(
  ec2: EC2Client,
  instanceId: string,
  priceOf?: PriceOf,
): Promise<CloudInstance | undefined> {
  try {
    const out = await withThrottleRetry('ec2:DescribeInstances', () =>
      ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] })),
    );
    const i = out.Reservations?.[0]?.Instances?.[0];
    return i ? toCloudInstance(i, priceOf) : undefined;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Terminates; an instance that is already gone (or never existed) is not an error. */
export async function terminateInstance(ec2: EC2Client, instanceId: string): Promise<void> {
  try {
    await withThrottleRetry('ec2:TerminateInstances', () =>
      ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] })),
    );
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
}
