// From a claim's instance-type options to one CreateFleet request, and from the fleet's answer back to an instance
// or a classified error. Pure functions: the provider does the calls.
import type {
  CreateFleetCommandInput,
  CreateFleetCommandOutput,
  FleetLaunchTemplateConfigRequest,
} from '@aws-sdk/client-ec2';
import type { NodeSelectorRequirementWithMinValues } from '../../api/karpenter';
import { LabelCapacityReservationId, LabelCapacityType, LabelZoneId } from '../../api/labels';
import type { NodeClaim } from '../../api/nodeclaim';
import type { CapacityType, InstanceType, InstanceTypeInfo, OfferingReservation } from '../../catalog/types';
import type { RefusedOffering } from '../../errors';
import { INSUFFICIENT_CAPACITY_CODES } from './errors';
import type { ResolvedSubnet } from './selectors';
import { toTagList } from './tags';

/** CreateFleet accepts many overrides, but more than 60 types only slows the call without better placement. */
export const MAX_INSTANCE_TYPES = 60;

export interface FleetOverride {
  instanceType: string;
  zone: string;
  subnetId: string;
  /** The image this type boots (by architecture and GPU/accelerator variant); one launch template per image. */
  amiId: string;
  price: number;
  /** A `reserved` override's reservation: the launch template targets it. */
  reservation?: OfferingReservation;
  /** Its price was set by a NodeOverlay, so EC2 must follow Karpless's prices, not its own (createFleetInput). */
  overlaid?: boolean;
}

/** The image an instance type boots in this node class, if any (see amis.ts amiFor). */
export type AmiOf = (info: InstanceTypeInfo) => string | undefined;

/** Capacity types the claim's requirements allow (no requirement: all, the offerings decide). */
export function allowedCapacityTypes(claim: Pick<NodeClaim, 'requirements'>): Set<CapacityType> {
  const all: CapacityType[] = ['reserved', 'spot', 'on-demand'];
  let allowed = new Set<CapacityType>(all);
  for (const r of claim.requirements) {
    if (r.key !== LabelCapacityType) continue;
    const values = new Set(r.values ?? []);
    if (r.operator === 'In') allowed = new Set(all.filter((c) => allowed.has(c) && values.has(c)));
    else if (r.operator === 'NotIn') allowed = new Set(all.filter((c) => allowed.has(c) && !values.has(c)));
    else if (r.operator === 'DoesNotExist') allowed = new Set();
  }
  return allowed;
}

/**
 * Whether a subnet may carry the claim: a `topology.k8s.aws/zone-id` requirement is judged on the subnet's own zone
 * id (EC2's answer for this account), not on the catalog's name-to-id map, which differs between accounts.
 */
export function subnetAdmitted(requirements: NodeSelectorRequirementWithMinValues[], subnet: ResolvedSubnet): boolean {
  for (const r of requirements) {
    if (r.key !== LabelZoneId) continue;
    const id = subnet.zoneId;
    const values = r.values ?? [];
    if (r.operator === 'In' && (id === undefined || !values.includes(id))) return false;
    if (r.operator === 'NotIn' && id !== undefined && values.includes(id)) return false;
    if (r.operator === 'DoesNotExist') return false;
  }
  return true;
}

/** Every launchable (type, zone) of one capacity type: offered, available, with a subnet the claim's zone-id
 * requirement admits and an image for it. */
export function fleetOverrides(
  types: InstanceType[],
  capacityType: CapacityType,
  subnetByZone: Map<string, ResolvedSubnet>,
  amiOf: AmiOf,
  requirements: NodeSelectorRequirementWithMinValues[] = [],
): FleetOverride[] {
  const out: FleetOverride[] = [];
  let typeCount = 0;
  for (const t of types) {
    if (typeCount >= MAX_INSTANCE_TYPES) break;
    const amiId = amiOf(t.info);
    if (!amiId) continue;
    let any = false;
    for (const o of t.offerings) {
      const subnet = subnetByZone.get(o.zone);
      if (o.capacityType !== capacityType || !o.available || !subnet) continue;
      if (!subnetAdmitted(requirements, subnet)) continue;
      if (o.reservation && !reservationAdmitted(requirements, o.reservation.id)) continue;
      out.push({
        instanceType: t.name,
        zone: o.zone,
        subnetId: subnet.id,
        amiId,
        price: o.price,
        ...(o.reservation ? { reservation: o.reservation } : {}),
        ...(o.overlay ? { overlaid: true } : {}),
      });
      any = true;
    }
    if (any) typeCount++;
  }
  return capacityType === 'reserved' ? oneReservationKind(out) : out;
}

/** A claim pinned to reservation ids (shared/scheduling/reserve.ts) launches only into those. */
function reservationAdmitted(requirements: NodeSelectorRequirementWithMinValues[], id: string): boolean {
  return requirements.every(
    (r) => r.key !== LabelCapacityReservationId || r.operator !== 'In' || (r.values ?? []).includes(id),
  );
}

/** What one reserved CreateFleet request may carry, as Karpenter filters it (one market type per request): on-demand
 * reservations first, then capacity blocks, then interruptible reservations (Karpenter's priority among them); one
 * reservation per type and zone (the one with the most room), and of capacity blocks only the cheapest one, since
 * CreateFleet takes a single capacity block per request. */
export function oneReservationKind(overrides: FleetOverride[]): FleetOverride[] {
  const defaults = overrides.filter((o) => o.reservation?.type !== 'capacity-block' && !o.reservation?.interruptible);
  if (defaults.length > 0) return mostRoomPerTypeAndZone(defaults);
  const blocks = overrides.filter((o) => o.reservation?.type === 'capacity-block');
  const cheapest = blocks.reduce<FleetOverride | undefined>((a, b) => (!a || b.price < a.price ? b : a), undefined);
  if (cheapest) return [cheapest];
  return mostRoomPerTypeAndZone(overrides.filter((o) => o.reservation?.interruptible));
}

function mostRoomPerTypeAndZone(overrides: FleetOverride[]): FleetOverride[] {
  const best = new Map<string, FleetOverride>();
  for (const o of overrides) {
    const k = `${o.instanceType}/${o.zone}`;
    const cur = best.get(k);
    if (!cur || (o.reservation?.capacity ?? 0) > (cur.reservation?.capacity ?? 0)) best.set(k, o);
  }
  return overrides.filter((o) => best.get(`${o.instanceType}/${o.zone}`) === o);
}

/** Karpenter's rule: a reservation when the claim allows `reserved` and one can be launched into, then spot when the
 * claim allows it and a spot offering can be launched, otherwise on-demand. */
export function chooseCapacityType(
  claim: Pick<NodeClaim, 'requirements'>,
  types: InstanceType[],
  subnetByZone: Map<string, ResolvedSubnet>,
  amiOf: AmiOf,
): CapacityType | undefined {
  const allowed = allowedCapacityTypes(claim);
  const reqs = claim.requirements;
  if (allowed.has('reserved') && fleetOverrides(types, 'reserved', subnetByZone, amiOf, reqs).length > 0) {
    return 'reserved';
  }
  if (allowed.has('spot') && fleetOverrides(types, 'spot', subnetByZone, amiOf, reqs).length > 0) return 'spot';
  if (allowed.has('on-demand') && fleetOverrides(types, 'on-demand', subnetByZone, amiOf, reqs).length > 0) {
    return 'on-demand';
  }
  return undefined;
}

export function createFleetInput(o: {
  claim: Pick<NodeClaim, 'uid'>;
  capacityType: CapacityType;
  /** Launch template name per image, with the overrides that boot it. */
  templates: { name: string; overrides: FleetOverride[] }[];
  tags: Record<string, string>;
}): CreateFleetCommandInput {
  const tags = toTagList(o.tags);
  // As Karpenter's AWS provider: once a NodeOverlay priced an option, EC2's own lowest-price choice would ignore the
  // overlay, so the fleet is prioritized and each override's priority is its (overlaid) price, lowest first
  // (docs/api.md, "NodeOverlay").
  const prioritized = o.templates.some((t) => t.overrides.some((ov) => ov.overlaid));
  const configs: FleetLaunchTemplateConfigRequest[] = o.templates.map((t) => ({
    LaunchTemplateSpecification: { LaunchTemplateName: t.name, Version: '$Latest' },
    Overrides: t.overrides.map((ov) => ({
      InstanceType: ov.instanceType as never,
      AvailabilityZone: ov.zone,
      SubnetId: ov.subnetId,
      ...(prioritized ? { Priority: ov.price } : {}),
    })),
  }));
  return {
    Type: 'instant',
    // EC2 makes CreateFleet idempotent on ClientToken: a replayed launch of the same claim gets the same instance.
    ClientToken: o.claim.uid,
    TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: targetCapacityType(o) },
    ...(o.capacityType === 'spot'
      ? {
          SpotOptions: {
            AllocationStrategy: prioritized ? 'capacity-optimized-prioritized' : 'price-capacity-optimized',
          },
        }
      : isCapacityBlock(o)
        ? {}
        : o.capacityType === 'reserved' && isInterruptible(o)
          ? { ReservedCapacityOptions: { ReservationTypes: ['interruptible-capacity-reservation' as const] } }
          : { OnDemandOptions: { AllocationStrategy: prioritized ? 'prioritized' : 'lowest-price' } }),
    LaunchTemplateConfigs: configs,
    TagSpecifications: [
      { ResourceType: 'instance', Tags: tags },
      { ResourceType: 'volume', Tags: tags },
      { ResourceType: 'fleet', Tags: tags },
      ...(o.capacityType === 'spot' ? [{ ResourceType: 'spot-instances-request' as const, Tags: tags }] : []),
    ],
  };
}

const isCapacityBlock = (o: { templates: { overrides: FleetOverride[] }[] }) =>
  o.templates.some((t) => t.overrides.some((ov) => ov.reservation?.type === 'capacity-block'));
const isInterruptible = (o: { templates: { overrides: FleetOverride[] }[] }) =>
  o.templates.some((t) => t.overrides.some((ov) => ov.reservation?.interruptible === true));

/** A reserved launch is an on-demand one that the launch templates target at the reservation; for a capacity block,
 * EC2's `capacity-block` target type; for an interruptible reservation, `reserved-capacity` with
 * `ReservedCapacityOptions` naming `interruptible-capacity-reservation`, as Karpenter asks (docs/aws.md, Capacity
 * reservations). One request carries one kind only (`oneReservationKind`). */
function targetCapacityType(o: {
  capacityType: CapacityType;
  templates: { overrides: FleetOverride[] }[];
}): 'spot' | 'on-demand' | 'capacity-block' | 'reserved-capacity' {
  if (o.capacityType !== 'reserved') return o.capacityType;
  if (isCapacityBlock(o)) return 'capacity-block';
  return isInterruptible(o) ? 'reserved-capacity' : 'on-demand';
}

export interface FleetLaunched {
  instanceId: string;
  instanceType: string;
  zone: string;
  subnetId?: string;
  capacityType: CapacityType;
}

export interface FleetFailure {
  code: string;
  message: string;
  instanceType?: string;
  zone?: string;
}

export interface FleetResult {
  launched?: FleetLaunched;
  /** Errors EC2 reported, also when an instance was launched (a partial result). */
  errors: FleetFailure[];
}

export function readFleetOutput(
  out: CreateFleetCommandOutput,
  capacityType: CapacityType,
  overrides: FleetOverride[],
): FleetResult {
  const errors: FleetFailure[] = (out.Errors ?? []).map((e) => {
    const ov = e.LaunchTemplateAndOverrides?.Overrides;
    const f: FleetFailure = { code: e.ErrorCode ?? 'Unknown', message: e.ErrorMessage ?? '' };
    if (ov?.InstanceType) f.instanceType = ov.InstanceType;
    if (ov?.AvailabilityZone) f.zone = ov.AvailabilityZone;
    else if (ov?.SubnetId) {
      const z = overrides.find((o) => o.subnetId === ov.SubnetId)?.zone;
      if (z) f.zone = z;
    }
    return f;
  });
  for (const i of out.Instances ?? []) {
    const id = i.InstanceIds?.[0];
    if (!id) continue;
    const ov = i.LaunchTemplateAndOverrides?.Overrides;
    const type = i.InstanceType ?? ov?.InstanceType ?? '';
    const zone = ov?.AvailabilityZone ?? overrides.find((o) => o.subnetId === ov?.SubnetId)?.zone ?? '';
    const launched: FleetLaunched = {
      instanceId: id,
      instanceType: type,
      zone,
      capacityType:
        capacityType === 'reserved'
          ? 'reserved'
          : i.Lifecycle === 'spot'
            ? 'spot'
            : i.Lifecycle === 'on-demand'
              ? 'on-demand'
              : capacityType,
    };
    const subnet = ov?.SubnetId ?? overrides.find((o) => o.instanceType === type && o.zone === zone)?.subnetId;
    if (subnet) launched.subnetId = subnet;
    return { launched, errors };
  }
  return { errors };
}

/** The offerings an all-capacity failure refused: named ones, or every requested one when EC2 named none. */
export function refusedOfferings(
  errors: FleetFailure[],
  capacityType: CapacityType,
  overrides: FleetOverride[],
): RefusedOffering[] {
  const out = new Map<string, RefusedOffering>();
  for (const e of errors) {
    if (!INSUFFICIENT_CAPACITY_CODES.has(e.code)) continue;
    const matching = overrides.filter(
      (o) => (!e.instanceType || o.instanceType === e.instanceType) && (!e.zone || o.zone === e.zone),
    );
    for (const o of matching) {
      const reservationId = capacityType === 'reserved' ? o.reservation?.id : undefined;
      out.set(`${o.instanceType}/${o.zone}/${reservationId ?? ''}`, {
        instanceType: o.instanceType,
        zone: o.zone,
        capacityType,
        ...(reservationId ? { reservationId } : {}),
        reason: e.code,
      });
    }
  }
  return [...out.values()];
}
