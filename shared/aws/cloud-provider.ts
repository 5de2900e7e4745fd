// The CloudProvider port on EC2: resolve the EC2NodeClass, pick the capacity type, ensure launch templates, and make
// one CreateFleet call whose ClientToken is the claim uid. Replays find the existing instance by tag first. What a
// function that never launches needs (list, get, terminate, template cleanup) is AwsInstanceProvider, its base.
import { CreateFleetCommand, type CreateFleetCommandOutput } from '@aws-sdk/client-ec2';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { STSClient } from '@aws-sdk/client-sts';
import type { EC2NodeClass } from '../api/karpenter';
import { LabelCapacityType, LabelNodePool, TaintUnregistered } from '../api/labels';
import type { NodeClaim } from '../api/nodeclaim';
import { isWindowsFamily } from '../api/windows';
import { instanceTypesFor } from '../catalog';
import { KUBELET_DEFAULT_MAX_PODS } from '../catalog/allocatable';
import type { ImageNeeds } from '../catalog/images';
import { reservationDrift, reservationStatuses, withReservedOfferings } from '../catalog/reservations';
import type {
  CapacityType,
  Catalog,
  InstanceType,
  InstanceTypeInfo,
  OfferingReservation,
  UnavailableOffering,
} from '../catalog/types';
import { InsufficientCapacityError, LaunchError, type RefusedOffering } from '../errors';
import type { CloudInstance, CloudProvider, LaunchRequest, NodeClassResolution } from '../ports';
import { iamClient, ssmClient } from './clients';
import { amiFor } from './ec2/amis';
import { CapacityReservations } from './ec2/capacity-reservations';
import { driftReason } from './ec2/drift';
import { classifyLaunchFailure, errorCode, INSUFFICIENT_CAPACITY_CODES, withThrottleRetry } from './ec2/errors';
import {
  chooseCapacityType,
  createFleetInput,
  type FleetFailure,
  type FleetLaunched,
  type FleetOverride,
  fleetOverrides,
  readFleetOutput,
  refusedOfferings,
} from './ec2/fleet';
import { listClusterInstances } from './ec2/instances';
import { DEFAULT_METADATA_OPTIONS, defaultBlockDevices } from './ec2/launch-template';
import { type ClusterInfo, NodeClassResolver, type ResolvedNodeClass } from './ec2/nodeclass';
import { nodeClassResolution } from './ec2/nodeclass-status';
import { clusterTags, instanceTags, TagNodeClaimUid, TagNodeClass, TagNodePool } from './ec2/tags';
import { userDataFor } from './ec2/userdata';
import { AwsInstanceProvider, type AwsInstanceProviderOptions } from './instance-provider';
import type { PriceTable } from './pricing/fetch';
import { withPrices } from './pricing/refresh';

const isTemplateNotFound = (code: string) => /LaunchTemplate.*NotFound/.test(code);

export interface AwsCloudProviderOptions extends AwsInstanceProviderOptions {
  cluster: ClusterInfo;
  /** Overrides how instance types are computed; by default the catalog's instanceTypesFor, with live prices laid
   * over it and the ICE cache applied. */
  instanceTypes?: (nodeClass: EC2NodeClass) => InstanceType[] | Promise<InstanceType[]>;
  /** Live prices (DynamoPriceStore.getPrices); the catalog's own prices when absent or undefined. */
  prices?: () => Promise<PriceTable | undefined>;
  /** Offerings recently refused (NodeClaimStore.listUnavailable). */
  unavailable?: (now: number) => Promise<UnavailableOffering[]>;
  ssm?: SSMClient;
  iam?: IAMClient;
  /** Decodes UnauthorizedOperation messages when given (needs sts:DecodeAuthorizationMessage). */
  sts?: STSClient;
  /** Offerings EC2 refused while still launching elsewhere (a partial fleet result); the caller caches them. */
  onUnavailable?: (offerings: UnavailableOffering[]) => void | Promise<void>;
  /** ICE cache lifetime for offerings reported through onUnavailable; 3 min as in Karpenter. */
  unavailableTtlMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class AwsCloudProvider extends AwsInstanceProvider implements CloudProvider {
  private readonly resolver: NodeClassResolver;
  private readonly reservations: CapacityReservations;

  constructor(private readonly o: AwsCloudProviderOptions) {
    super(o);
    const region = { region: o.cluster.region };
    this.resolver = new NodeClassResolver({
      ec2: this.ec2,
      ssm: o.ssm ?? ssmClient(region),
      iam: o.iam ?? iamClient(region),
      cluster: o.cluster,
      clock: this.clock,
    });
    this.reservations = new CapacityReservations(this.ec2, this.clock);
  }

  resolveNodeClass(nodeClass: EC2NodeClass): Promise<ResolvedNodeClass> {
    return this.resolver.resolve(nodeClass);
  }

  async describeNodeClass(nodeClass: EC2NodeClass): Promise<NodeClassResolution> {
    const resolution = nodeClassResolution(await this.resolver.resolve(nodeClass));
    const terms = nodeClass.spec.capacityReservationSelectorTerms;
    if (!terms?.length) return resolution;
    const reservations = await this.reservations.list(terms);
    return { ...resolution, capacityReservations: reservationStatuses(reservations, this.clock.now()) };
  }

  async create(request: LaunchRequest): Promise<CloudInstance> {
    const { claim } = request;
    const existing = await this.findByClaim(claim);
    if (existing) return existing;

    const resolved = await this.classified(
      'EC2NodeClass resolution (ec2:Describe*, ssm:GetParameter, iam:*InstanceProfile)',
      () => this.resolver.resolve(request.nodeClass),
    );
    if (resolved.ready.status !== 'True' || !resolved.instanceProfile) {
      throw new LaunchError('invalid-config', resolved.ready.message || `EC2NodeClass ${resolved.name} is not ready`);
    }
    const amiOf = (info: InstanceTypeInfo) => amiFor(info, resolved.amis)?.id;
    const capacityType = chooseCapacityType(claim, request.instanceTypes, resolved.subnetByZone, amiOf);
    if (!capacityType) {
      throw new InsufficientCapacityError(
        `NodeClaim ${claim.name}: no launchable offering (type × zone with a subnet and a matching AMI among ${resolved.amis.map((a) => a.id).join(', ')}) among ${request.instanceTypes.length} instance types`,
        [],
      );
    }
    const overrides = fleetOverrides(
      request.instanceTypes,
      capacityType,
      resolved.subnetByZone,
      amiOf,
      claim.requirements,
    );
    const tags = instanceTags(this.o.cluster.name, claim, request.nodeClass.spec.tags);

    let output: CreateFleetCommandOutput | undefined;
    // Two attempts: a template this container knows may have been deleted since (cleanup in another Lambda, or by
    // hand). A call EC2 rejects outright created no fleet, so after re-creating the templates it is asked again
    // with the same token (the template names, hence the parameters, are unchanged).
    for (let attempt = 0; !output; attempt++) {
      const templates = await this.classified('ec2:CreateLaunchTemplate', () =>
        this.ensureTemplates(request, resolved, capacityType, overrides),
      );
      const input = createFleetInput({ claim, capacityType, templates, tags });
      try {
        output = await withThrottleRetry('ec2:CreateFleet', () => this.ec2.send(new CreateFleetCommand(input)), {
          ...(this.o.sleep ? { sleep: this.o.sleep } : {}),
        });
      } catch (err) {
        if (err instanceof LaunchError) throw err;
        const code = errorCode(err);
        // Same token, different parameters: an earlier attempt for this claim got through; find its instance.
        if (code === 'IdempotentParameterMismatch') {
          const found = await this.findByClaim(claim);
          if (found) return found;
        }
        if (isTemplateNotFound(code)) {
          for (const t of templates) this.templates.forget(t.name);
          if (attempt === 0) continue;
        }
        throw await classifyLaunchFailure(code, (err as Error).message ?? '', 'ec2:CreateFleet', this.o.sts);
      }
      // Reported in the result, the fleet exists under this token and a retry would replay it: forget the
      // templates so the next claim re-creates them, and let this one fail.
      if ((output.Errors ?? []).some((e) => isTemplateNotFound(e.ErrorCode ?? ''))) {
        for (const t of templates) this.templates.forget(t.name);
      }
    }

    const result = readFleetOutput(output, capacityType, overrides);
    const refused = refusedOfferings(result.errors, capacityType, overrides);
    // A reservation EC2 refused (ReservationCapacityExceeded, ...) has no room until it is described again.
    for (const r of refused) if (r.reservationId) this.reservations.markUnavailable(r.reservationId);
    if (result.launched) {
      if (refused.length && this.o.onUnavailable) {
        const expiresAt = this.clock.now() + (this.o.unavailableTtlMs ?? 3 * 60_000);
        await this.o.onUnavailable(refused.map((r) => ({ ...r, expiresAt })));
      }
      return this.launchedInstance(result.launched, capacityType, overrides, resolved, tags);
    }
    throw await this.fleetFailure(claim, capacityType, result.errors, refused);
  }

  /** The instance a fleet launched, priced and tagged as requested, with the reservation it took. */
  private launchedInstance(
    l: FleetLaunched,
    capacityType: CapacityType,
    overrides: FleetOverride[],
    resolved: ResolvedNodeClass,
    tags: Record<string, string>,
  ): CloudInstance {
    const ov = overrides.find((o) => o.instanceType === l.instanceType && o.zone === l.zone);
    const instance: CloudInstance = {
      instanceId: l.instanceId,
      providerID: `aws:///${l.zone}/${l.instanceId}`,
      instanceType: l.instanceType,
      zone: l.zone,
      capacityType: l.capacityType,
      pricePerHour: ov?.price ?? this.priceOf(l.instanceType, l.zone, l.capacityType) ?? 0,
      state: 'pending',
      launchedAt: new Date(this.clock.now()).toISOString(),
      securityGroupIds: resolved.securityGroups.map((g) => g.id).sort(),
      tags,
    };
    if (ov) instance.imageId = ov.amiId;
    if (l.subnetId) instance.subnetId = l.subnetId;
    if (capacityType === 'reserved' && ov?.reservation) {
      const { id, type, endTime, interruptible } = ov.reservation;
      instance.capacityReservation = {
        id,
        type,
        ...(endTime ? { endTime } : {}),
        ...(interruptible ? { interruptible: true } : {}),
      };
      this.reservations.markLaunched(id);
    }
    return instance;
  }

  /** The error for a fleet that launched nothing: insufficient capacity when every error says so, else the first
   * other error, classified. */
  private async fleetFailure(
    claim: NodeClaim,
    capacityType: CapacityType,
    errors: FleetFailure[],
    refused: RefusedOffering[],
  ): Promise<Error> {
    const nonCapacity = errors.filter((e) => !INSUFFICIENT_CAPACITY_CODES.has(e.code));
    if (errors.length > 0 && nonCapacity.length === 0) {
      return new InsufficientCapacityError(
        `NodeClaim ${claim.name}: no ${capacityType} capacity in ${refused.length} offering(s): ${[...new Set(errors.map((e) => e.code))].join(', ')}`,
        refused,
      );
    }
    const first = nonCapacity[0];
    if (!first)
      return new LaunchError(
        'unknown',
        `NodeClaim ${claim.name}: CreateFleet returned neither an instance nor an error`,
      );
    return classifyLaunchFailure(first.code, first.message, 'ec2:CreateFleet', this.o.sts);
  }

  async getInstanceTypes(nodeClass: EC2NodeClass): Promise<InstanceType[]> {
    const now = this.clock.now();
    const terms = nodeClass.spec.capacityReservationSelectorTerms;
    const [reservations, unavailable] = await Promise.all([
      terms?.length ? this.reservations.list(terms) : [],
      this.o.unavailable?.(now),
    ]);
    let types: InstanceType[];
    if (this.o.instanceTypes) types = await this.o.instanceTypes(nodeClass);
    else {
      const table = await this.o.prices?.();
      types = instanceTypesFor(this.pricedCatalog(table), nodeClass, { unavailable: unavailable ?? [], now });
    }
    return withReservedOfferings(types, reservations, now, unavailable);
  }

  // One priced catalog object per price table, so the catalog's per-object memoization keeps working.
  private priced?: { refreshedAt: string; catalog: Catalog };

  /** Live prices when a table was read; none when instance types come from the caller, whose prices are its own. */
  protected override pricingCatalog(): Catalog | undefined {
    if (this.o.instanceTypes) return undefined;
    return this.priced?.catalog ?? this.pricedCatalog(undefined);
  }

  private pricedCatalog(table: PriceTable | undefined): Catalog {
    if (!table) return this.catalog();
    if (this.priced?.refreshedAt !== table.refreshedAt) {
      this.priced = { refreshedAt: table.refreshedAt, catalog: withPrices(this.catalog(), table) };
    }
    return this.priced.catalog;
  }

  async isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass): Promise<string | undefined> {
    if (!claim.instanceId) return undefined;
    const instance = await this.get(claim.instanceId);
    if (!instance || instance.state === 'terminated') return undefined;
    const resolved = await this.resolver.resolve(nodeClass);
    const drifted = driftReason(instance, resolved, await this.imageNeeds(nodeClass, instance.instanceType));
    if (drifted || !instance.capacityReservation) return drifted;
    const selected = await this.reservations.list(nodeClass.spec.capacityReservationSelectorTerms);
    return reservationDrift(instance.capacityReservation.id, selected);
  }

  /** What decides an instance type's image (AMI drift is per type): the caller's types when given, else the
   * catalog's. */
  private async imageNeeds(nodeClass: EC2NodeClass, type: string): Promise<ImageNeeds | undefined> {
    if (this.o.instanceTypes) return (await this.o.instanceTypes(nodeClass)).find((t) => t.name === type)?.info;
    return this.typeInfo(this.catalog(), type);
  }

  /** Runs a pre-launch step, turning an SDK failure into the port's LaunchError (unauthorized names the action). */
  private async classified<T>(action: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (err instanceof LaunchError || err instanceof InsufficientCapacityError) throw err;
      if (!(err instanceof Error) || !('$metadata' in err || 'Code' in err)) {
        // Not an AWS service error: invalid input (a bad volume size, userData that does not parse, ...).
        throw new LaunchError('invalid-config', `${action}: ${(err as Error).message}`);
      }
      throw await classifyLaunchFailure(errorCode(err), err.message, action, this.o.sts);
    }
  }

  private async findByClaim(claim: NodeClaim): Promise<CloudInstance | undefined> {
    const found = await listClusterInstances(this.ec2, this.o.cluster.name, {
      tags: { [TagNodeClaimUid]: claim.uid },
      priceOf: this.priceOf,
    });
    return found[0];
  }

  private async ensureTemplates(
    request: LaunchRequest,
    resolved: ResolvedNodeClass,
    capacityType: CapacityType,
    overrides: FleetOverride[],
  ): Promise<{ name: string; overrides: FleetOverride[] }[]> {
    const { claim, nodeClass } = request;
    const spec = nodeClass.spec;
    const labels = { ...claim.labels, [LabelNodePool]: claim.nodePool, [LabelCapacityType]: capacityType };
    const userData = userDataFor(resolved.amiFamily, {
      cluster: this.o.cluster,
      labels,
      // The kubelet registers with karpenter.sh/unregistered too, as Karpenter's AMI resolver adds it: nothing
      // schedules onto the node until registration has synced its labels and taints and taken this one off.
      taints: [...claim.taints, ...claim.startupTaints, TaintUnregistered],
      ...(spec.kubelet ? { kubelet: spec.kubelet } : {}),
      ...(spec.userData ? { customUserData: spec.userData } : {}),
      // Windows kubelets are told the pod density the scheduler assumed, as Karpenter does (docs/catalog.md).
      ...(isWindowsFamily(resolved.amiFamily) ? { maxPods: KUBELET_DEFAULT_MAX_PODS } : {}),
    });
    const ltTags = {
      ...(spec.tags ?? {}),
      ...clusterTags(this.o.cluster.name),
      [TagNodePool]: claim.nodePool,
      [TagNodeClass]: nodeClass.metadata.name,
    };
    const out: { name: string; overrides: FleetOverride[] }[] = [];
    const selectsReservations = (spec.capacityReservationSelectorTerms?.length ?? 0) > 0;
    // One template per image, and for a reserved launch per image and reservation: each targets its reservation.
    for (const { amiId, reservation, mine } of templateGroups(resolved.amis, overrides)) {
      const name = await withThrottleRetry('ec2:CreateLaunchTemplate', () =>
        this.templates.ensure({
          cluster: this.o.cluster.name,
          amiId,
          securityGroupIds: resolved.securityGroups.map((g) => g.id).sort(),
          userData,
          blockDeviceMappings: spec.blockDeviceMappings ?? defaultBlockDevices(resolved.amiFamily),
          metadataOptions: { ...DEFAULT_METADATA_OPTIONS, ...(spec.metadataOptions ?? {}) },
          instanceProfile: resolved.instanceProfile as string,
          tags: ltTags,
          ...(spec.associatePublicIPAddress !== undefined
            ? { associatePublicIPAddress: spec.associatePublicIPAddress }
            : {}),
          ...(spec.detailedMonitoring !== undefined ? { detailedMonitoring: spec.detailedMonitoring } : {}),
          ...(reservation
            ? {
                capacityReservation: {
                  preference: 'capacity-reservations-only' as const,
                  id: reservation.id,
                  capacityBlock: reservation.type === 'capacity-block',
                  ...(reservation.interruptible ? { interruptible: true } : {}),
                },
              }
            : selectsReservations
              ? { capacityReservation: { preference: 'none' as const } }
              : {}),
        }),
      );
      out.push({ name, overrides: mine });
    }
    return out;
  }
}

/** Overrides grouped by image, and within an image by reservation (none for on-demand and spot). */
function templateGroups(amis: readonly { id: string }[], overrides: FleetOverride[]) {
  const out: { amiId: string; reservation?: OfferingReservation; mine: FleetOverride[] }[] = [];
  for (const ami of amis) {
    const byReservation = new Map<string, FleetOverride[]>();
    for (const o of overrides) {
      if (o.amiId !== ami.id) continue;
      const k = o.reservation?.id ?? '';
      byReservation.set(k, [...(byReservation.get(k) ?? []), o]);
    }
    for (const mine of byReservation.values()) {
      const reservation = (mine[0] as FleetOverride).reservation;
      out.push({ amiId: ami.id, ...(reservation ? { reservation } : {}), mine });
    }
  }
  return out;
}
