// A simulated EC2: "launches" NodeClaims from the catalog the way CreateFleet does, without any AWS call. It is
// the cloud behind `karpless simulate` and the test bed for everything that talks to a CloudProvider.
import type { EC2NodeClass } from '../api/karpenter';
import type { NodeClaim } from '../api/nodeclaim';
import { amiDrift } from '../catalog/drift-ami';
import { amiFor, type ImageNeeds } from '../catalog/images';
import {
  type CapacityReservation,
  reservationDrift,
  selectReservations,
  withReservedOfferings,
} from '../catalog/reservations';
import type { CapacityType, InstanceType, Offering, OfferingReservation, UnavailableOffering } from '../catalog/types';
import { InsufficientCapacityError, LaunchError, type RefusedOffering } from '../errors';
import type { Clock, CloudInstance, CloudProvider, LaunchRequest } from '../ports';
import { createRng, type Rng } from './rng';
import { SimAccount } from './sim-account';

/** An offering to refuse launches into; a `reserved` one may name its reservation, else every reservation of the type
 * and zone refuses. */
export type OfferingKey = Pick<UnavailableOffering, 'instanceType' | 'zone' | 'capacityType' | 'reservationId'>;

export interface SimLaunch {
  instance: CloudInstance;
  claim: NodeClaim;
  instanceType: InstanceType;
}

export interface SimCloudOptions {
  clock: Clock;
  /** Seeds instance ids and AMI ids; the same seed and calls give the same ids. */
  seed?: number;
  cluster?: string;
  /** The instance types an EC2NodeClass sees; the simulator wires this to the catalog (instanceTypesFor). */
  instanceTypes: (nodeClass: EC2NodeClass) => InstanceType[] | Promise<InstanceType[]>;
}

const key = (o: OfferingKey): string =>
  `${o.instanceType}/${o.zone}/${o.capacityType}${o.reservationId ? `/${o.reservationId}` : ''}`;

export class SimCloud implements CloudProvider {
  readonly cluster: string;
  /** The AMIs, subnets, security groups and Kubernetes version the classes resolve against; scenario steps change it. */
  readonly account = new SimAccount();
  private readonly rng: Rng;
  private readonly instances = new Map<string, SimLaunch>();
  private readonly byClaimUid = new Map<string, string>();
  private readonly noCapacity = new Set<string>();
  private readonly reservations = new Map<string, CapacityReservation>();
  private readonly launchListeners: ((launch: SimLaunch) => void)[] = [];
  private readonly deleteListeners: ((instance: CloudInstance) => void)[] = [];
  private nextLaunchError: LaunchError | undefined;

  constructor(private readonly options: SimCloudOptions) {
    this.cluster = options.cluster ?? 'sim';
    this.rng = createRng(options.seed ?? 1);
  }

  /** Makes an offering refuse launches (InsufficientInstanceCapacity) until `restoreCapacity`. */
  injectInsufficientCapacity(offering: OfferingKey): void {
    this.noCapacity.add(key(offering));
  }

  restoreCapacity(offering?: OfferingKey): void {
    if (offering) this.noCapacity.delete(key(offering));
    else this.noCapacity.clear();
  }

  /** The next create fails with this error (spot disabled, unauthorized, throttled, ...). */
  failNextLaunch(error: LaunchError): void {
    this.nextLaunchError = error;
  }

  onLaunch(listener: (launch: SimLaunch) => void): void {
    this.launchListeners.push(listener);
  }

  onDelete(listener: (instance: CloudInstance) => void): void {
    this.deleteListeners.push(listener);
  }

  async create(request: LaunchRequest): Promise<CloudInstance> {
    const existing = this.byClaimUid.get(request.claim.uid);
    if (existing) return { ...(this.instances.get(existing) as SimLaunch).instance };
    if (this.nextLaunchError) {
      const error = this.nextLaunchError;
      this.nextLaunchError = undefined;
      throw error;
    }
    if (request.instanceTypes.length === 0) {
      throw new LaunchError('invalid-config', `no instance types for ${request.claim.name}`);
    }
    // As on AWS, a type the class has no image for is not launched (shared/aws/ec2/fleet.ts). The class's images and
    // subnets are resolved once for the launch, not once per type and offering.
    const images = this.account.imagesFor(request.nodeClass);
    const bootable = request.instanceTypes.filter((t) => amiFor(t.info, images)?.id);
    const subnets = new Map<string, string | undefined>();
    const subnetIn = (zone: string): string | undefined => {
      if (!subnets.has(zone)) subnets.set(zone, this.account.subnetFor(request.nodeClass, zone));
      return subnets.get(zone);
    };
    if (bootable.length === 0) {
      throw new InsufficientCapacityError(
        `NodeClaim ${request.claim.name}: no image among ${this.imagesOf(request.nodeClass)} for any of ${request.instanceTypes.length} instance types`,
        [],
      );
    }
    const room = new Map(this.liveReservations().map((r) => [r.id, r.availableInstanceCount]));
    const choice = this.choose(
      bootable,
      (zone) => !!subnetIn(zone),
      (id) => (room.get(id) ?? 0) > 0,
    );
    if (!choice.pick) {
      throw new InsufficientCapacityError(
        `insufficient capacity for ${request.claim.name}: ${choice.refused.length} offering(s) refused`,
        choice.refused.map((o) => ({
          ...o,
          reason: o.capacityType === 'reserved' ? 'ReservationCapacityExceeded' : 'InsufficientInstanceCapacity',
        })),
      );
    }
    const { type, offering } = choice.pick;
    const instance = this.newInstance(
      type,
      offering,
      request.nodeClass,
      { imageId: amiFor(type.info, images)?.id, subnetId: subnetIn(offering.zone) },
      new Date(this.options.clock.now()).toISOString(),
      {
        ...(request.nodeClass.spec.tags ?? {}),
        'karpenter.sh/nodepool': request.nodePool.metadata.name,
        'karpenter.sh/nodeclaim': request.claim.name,
        'karpenter.k8s.aws/ec2nodeclass': request.nodeClass.metadata.name,
        'eks:eks-cluster-name': this.cluster,
        [`kubernetes.io/cluster/${this.cluster}`]: 'owned',
        Name: `${request.nodePool.metadata.name}/${request.claim.name}`,
      },
    );
    const instanceId = instance.instanceId;
    const launch = { instance, claim: request.claim, instanceType: type };
    this.instances.set(instanceId, launch);
    this.byClaimUid.set(request.claim.uid, instanceId);
    for (const listener of this.launchListeners) listener(launch);
    return { ...instance };
  }

  /** A running instance of the type on the offering (in its reservation, if it has one) under a fresh id, with the
   * image and subnet given and the node class's security groups. */
  private newInstance(
    type: InstanceType,
    offering: Offering,
    nodeClass: EC2NodeClass,
    placement: { imageId: string | undefined; subnetId: string | undefined },
    launchedAt: string,
    tags: Record<string, string>,
  ): CloudInstance {
    const instanceId = `i-${this.rng.hex(17)}`;
    return {
      instanceId,
      providerID: `aws:///${offering.zone}/${instanceId}`,
      instanceType: type.name,
      zone: offering.zone,
      capacityType: offering.capacityType,
      ...(offering.reservation ? { capacityReservation: launchedReservation(offering.reservation) } : {}),
      pricePerHour: offering.price,
      state: 'running',
      launchedAt,
      imageId: placement.imageId,
      subnetId: placement.subnetId ?? `subnet-${offering.zone}`,
      securityGroupIds: this.launchGroups(nodeClass),
      tags,
    };
  }

  /** Records an instance that was running before the simulation started (a seeded node): no launch is announced,
   * since its Node already exists. */
  adopt(claim: NodeClaim, nodeClass: EC2NodeClass, type: InstanceType, offering: Offering, launchedAt: string) {
    const placement = {
      imageId: this.imageFor(nodeClass, type.info),
      subnetId: this.account.subnetFor(nodeClass, offering.zone),
    };
    const instance = this.newInstance(type, offering, nodeClass, placement, launchedAt, {
      'karpenter.sh/nodepool': claim.nodePool,
      'karpenter.sh/nodeclaim': claim.name,
    });
    const instanceId = instance.instanceId;
    this.instances.set(instanceId, { instance, claim, instanceType: type });
    this.byClaimUid.set(claim.uid, instanceId);
    return { ...instance };
  }

  async delete(instanceId: string): Promise<void> {
    const launch = this.instances.get(instanceId);
    if (!launch || launch.instance.state === 'terminated') return;
    launch.instance.state = 'terminated';
    for (const listener of this.deleteListeners) listener({ ...launch.instance });
  }

  async get(instanceId: string): Promise<CloudInstance | undefined> {
    const launch = this.instances.get(instanceId);
    return launch ? this.asReported(launch) : undefined;
  }

  async list(): Promise<CloudInstance[]> {
    // Every simulated instance was launched through create() or adopted from a claim: all are Karpless's.
    return [...this.instances.values()]
      .filter((l) => l.instance.state !== 'terminated')
      .map((l) => ({ ...this.asReported(l), launchProof: 'simulated launch' }));
  }

  /** The instance as EC2 describes it now: once its reservation has ended, it runs on as on-demand, at that price. */
  private asReported(launch: SimLaunch): CloudInstance {
    const { capacityReservation, ...rest } = launch.instance;
    if (!capacityReservation || this.reservationOf(launch.instance, this.options.clock.now()))
      return { ...launch.instance };
    return { ...rest, capacityType: 'on-demand', pricePerHour: launch.instanceType.info.onDemandPrice };
  }

  /** The launch record behind an instance: the claim it was made for and its instance type. */
  launchOf(instanceId: string): SimLaunch | undefined {
    return this.instances.get(instanceId);
  }

  async getInstanceTypes(nodeClass: EC2NodeClass): Promise<InstanceType[]> {
    const types = await this.options.instanceTypes(nodeClass);
    const now = this.options.clock.now();
    const terms = nodeClass.spec.capacityReservationSelectorTerms;
    if (!terms?.length || this.reservations.size === 0) return types;
    return withReservedOfferings(types, selectReservations(terms, this.liveReservations(), now), now);
  }

  /** The account's capacity reservations (docs/scenarios.md, Capacity reservations): `totalInstanceCount` is their
   * size, and their room is what the instances running in them leave. */
  addReservations(reservations: readonly CapacityReservation[]): void {
    for (const r of reservations) this.reservations.set(r.id, { ...r });
  }

  /** The class's types with each reservation it selects at its whole size: the room a bound over every running and
   * pending pod may use (shared/sim/scenario/lower-bound.ts). */
  withWholeReservations(nodeClass: EC2NodeClass, types: InstanceType[]): InstanceType[] {
    const terms = nodeClass.spec.capacityReservationSelectorTerms;
    if (!terms?.length || this.reservations.size === 0) return types;
    const now = this.options.clock.now();
    const whole = [...this.reservations.values()].map((r) => ({
      ...r,
      availableInstanceCount: r.totalInstanceCount ?? r.availableInstanceCount,
    }));
    return withReservedOfferings(types, selectReservations(terms, whole, now), now);
  }

  /** Each reservation with its room now: its size less the live instances launched into it. */
  liveReservations(): CapacityReservation[] {
    const used = new Map<string, number>();
    for (const l of this.instances.values()) {
      const id = l.instance.capacityReservation?.id;
      if (id && l.instance.state !== 'terminated') used.set(id, (used.get(id) ?? 0) + 1);
    }
    return [...this.reservations.values()].map((r) => ({
      ...r,
      availableInstanceCount: Math.max(0, (r.totalInstanceCount ?? r.availableInstanceCount) - (used.get(r.id) ?? 0)),
    }));
  }

  async isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass): Promise<string | undefined> {
    const launch = claim.instanceId ? this.instances.get(claim.instanceId) : undefined;
    const instance = launch?.instance;
    const typeName = launch?.instanceType.name ?? claim.instanceType;
    const info =
      launch?.instanceType.info ??
      (typeName ? (await this.options.instanceTypes(nodeClass)).find((t) => t.name === typeName)?.info : undefined);
    const ami = amiDrift({
      imageId: claim.imageId ?? instance?.imageId,
      instanceType: typeName ?? 'an unknown type',
      info,
      amis: this.account.imagesFor(nodeClass),
    });
    if (ami) return ami;
    if (!instance) return undefined;
    const network = this.account.networkDrift(instance, nodeClass);
    if (network) return network;
    const now = this.options.clock.now();
    const terms = nodeClass.spec.capacityReservationSelectorTerms;
    return reservationDrift(this.reservationOf(instance, now), selectReservations(terms, this.liveReservations(), now));
  }

  /** The reservation an instance is in now: the one it launched into, until that reservation ends or is cancelled
   * (EC2 then runs it on as on-demand). */
  reservationOf(instance: CloudInstance, now: number): string | undefined {
    const id = instance.capacityReservation?.id;
    const r = id ? this.reservations.get(id) : undefined;
    return r && (!r.endTime || Date.parse(r.endTime) > now) ? r.id : undefined;
  }

  /** The AMI a launch of `type` through this class uses now, chosen among the class's images as on AWS
   * (shared/catalog/images.ts); undefined when none is for its architecture (such a type is not launched). */
  imageFor(nodeClass: EC2NodeClass, type: ImageNeeds): string | undefined {
    return amiFor(type, this.account.imagesFor(nodeClass))?.id;
  }

  private imagesOf(nodeClass: EC2NodeClass): string {
    return this.account
      .imagesFor(nodeClass)
      .map((a) => `${a.id} (${a.arch})`)
      .join(', ');
  }

  /** The class's security groups; the account's default when the class selects none (the simulator still launches). */
  private launchGroups(nodeClass: EC2NodeClass): string[] {
    const groups = this.account.securityGroupsFor(nodeClass);
    return groups.length > 0 ? groups : ['sg-sim'];
  }

  private refusedNow(instanceType: string, offering: Offering): boolean {
    const plain = { instanceType, zone: offering.zone, capacityType: offering.capacityType };
    return this.noCapacity.has(key(plain)) || this.noCapacity.has(key(offeringKey(instanceType, offering)));
  }

  /** A reservation with room first, then spot when any spot offering is available (Karpenter asks CreateFleet for
   * reserved, then spot), else on-demand; the
   * cheapest offering of that capacity type wins, ties going to the earlier option, then zone order. A zone where the
   * class selects no subnet is refused (Karpenter offers only zones its subnets cover). */
  private choose(
    types: InstanceType[],
    zoneHasSubnet: (zone: string) => boolean,
    reservationHasRoom: (id: string) => boolean = () => true,
  ): { pick?: { type: InstanceType; offering: Offering }; refused: RefusedOffering[] } {
    const refused: RefusedOffering[] = [];
    let best: Record<CapacityType, { type: InstanceType; offering: Offering } | undefined> = {
      reserved: undefined,
      spot: undefined,
      'on-demand': undefined,
    };
    for (const type of types) {
      for (const offering of type.offerings) {
        if (!offering.available) continue;
        const full = offering.reservation !== undefined && !reservationHasRoom(offering.reservation.id);
        // Most launches meet no refused offering: the keys are built only when some are set.
        const noCapacity = this.noCapacity.size > 0 && this.refusedNow(type.name, offering);
        if (full || noCapacity || !zoneHasSubnet(offering.zone)) {
          refused.push(offeringKey(type.name, offering));
          continue;
        }
        const current = best[offering.capacityType];
        if (!current || offering.price < current.offering.price) {
          best = { ...best, [offering.capacityType]: { type, offering } };
        }
      }
    }
    return { pick: best.reserved ?? best.spot ?? best['on-demand'], refused };
  }
}

function offeringKey(instanceType: string, offering: Offering): RefusedOffering {
  const plain = { instanceType, zone: offering.zone, capacityType: offering.capacityType };
  return offering.reservation ? { ...plain, reservationId: offering.reservation.id } : plain;
}

function launchedReservation(r: OfferingReservation) {
  return {
    id: r.id,
    type: r.type,
    ...(r.endTime ? { endTime: r.endTime } : {}),
    ...(r.interruptible ? { interruptible: true } : {}),
  };
}
