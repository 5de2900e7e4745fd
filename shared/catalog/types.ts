// The instance-type catalog: raw facts per EC2 instance type (as DescribeInstanceTypes, the Pricing API and
// DescribeSpotPriceHistory report them), and the per-EC2NodeClass view the scheduler uses.
import type { ResourceList } from '../api/resources';

/** `reserved`: launched into a capacity reservation the EC2NodeClass selects (shared/catalog/reservations.ts). */
export type CapacityType = 'spot' | 'on-demand' | 'reserved';
export type Arch = 'amd64' | 'arm64';

export interface InstanceTypeInfo {
  name: string;
  family: string;
  /** Karpenter's instance-category: the family's leading letters ("m", "c", "inf", "trn", "g", "p"). */
  category: string;
  generation: number;
  size: string;
  vcpu: number;
  memoryMiB: number;
  arch: Arch;
  cpuManufacturer?: string;
  cpuClockMhz?: number;
  gpu?: { count: number; name: string; manufacturer: string; memoryMiB: number };
  accelerator?: { count: number; name: string; manufacturer: string; cores?: number };
  maxEnis: number;
  ipv4PerEni: number;
  /** Branch ENIs for security groups for pods (vpc.amazonaws.com/pod-eni); 0 when unsupported. */
  branchEnis?: number;
  efa?: number;
  localNvmeGiB?: number;
  networkBandwidthMbps?: number;
  ebsBandwidthMbps?: number;
  hypervisor: 'nitro' | 'xen' | '';
  /** EBS volumes the type can attach (DescribeInstanceTypes `EbsInfo.MaximumEbsAttachments`); absent in catalogs
   * built before it was recorded (ebs-limits.ts then assumes the common Nitro figure). */
  maxEbsAttachments?: number;
  /** Whether that limit is shared with network interfaces and instance store volumes (most Nitro types) or dedicated
   * to EBS (`EbsInfo.AttachmentLimitType`). */
  ebsAttachmentLimitType?: 'shared' | 'dedicated';
  bareMetal: boolean;
  encryptionInTransit?: boolean;
  currentGeneration: boolean;
  /** Flex instances (m7i-flex, c7i-flex): Karpenter's instance-capability-flex label. */
  capabilityFlex?: boolean;
  onDemandPrice: number;
  /** Spot price per zone; a zone absent here has no spot offering. */
  spotPrice: Record<string, number>;
  /** Zones that offer the type at all. */
  zones: string[];
  /**
   * Windows Server (License Included) prices, licence included; absent when the type is not sold with Windows
   * (Graviton, or a catalog built without them). docs/catalog.md, Windows prices.
   */
  windows?: WindowsPrices;
}

export interface WindowsPrices {
  onDemandPrice: number;
  /** Spot price per zone; a zone absent here has no Windows spot offering. */
  spotPrice: Record<string, number>;
}

/** The operating system of the nodes an EC2NodeClass launches (kubernetes.io/os). */
export type NodeOS = 'linux' | 'windows';

export interface Catalog {
  region: string;
  zones: { name: string; id: string }[];
  generatedAt: string;
  source: string;
  /** Prices the catalog derived rather than read from AWS: its spot prices, its Windows prices (docs/catalog.md,
   * "Spot prices are estimates"). Absent in catalogs from `catalog refresh`, whose prices are all AWS's. */
  estimatedPrices?: { spot?: boolean; windows?: boolean };
  types: InstanceTypeInfo[];
}

export interface Offering {
  zone: string;
  zoneId?: string;
  capacityType: CapacityType;
  price: number;
  /** `estimate`: derived by the catalog, not AWS's price (Catalog.estimatedPrices); absent for AWS's own prices. */
  priceSource?: 'estimate';
  available: boolean;
  /** The NodeOverlay that set this price and the price before it (shared/catalog/overlay.ts). */
  overlay?: AppliedPriceOverlay;
  /** A `reserved` offering's reservation: its id, type, the instances it can still take, and a block's end. */
  reservation?: OfferingReservation;
}

export interface OfferingReservation {
  id: string;
  type: 'default' | 'capacity-block';
  capacity: number;
  endTime?: string;
  /** An interruptible capacity reservation: EC2 may reclaim its instances (docs/aws.md, Capacity reservations). */
  interruptible?: boolean;
}

/** An instance type as seen through one EC2NodeClass: capacity, overhead and allocatable depend on its kubelet. */
export interface InstanceType {
  name: string;
  info: InstanceTypeInfo;
  /** Karpenter's well-known labels, single-valued (zone and capacity type come from offerings). */
  labels: Record<string, string>;
  capacity: ResourceList;
  overhead: { kubeReserved: ResourceList; systemReserved: ResourceList; evictionThreshold: ResourceList };
  allocatable: ResourceList;
  offerings: Offering[];
  /** Volumes a new node of this type can attach, per CSI driver (ebs.csi.aws.com: catalog/ebs-limits.ts). */
  volumeLimits?: Record<string, number>;
  /** Extended resources a NodeOverlay added, by resource, naming the overlay (shared/catalog/overlay.ts). */
  capacityOverlays?: Record<string, AppliedCapacityOverlay>;
}

/** A NodeOverlay as it changed one offering's price, for decision records and `karpless explain`. */
export interface AppliedPriceOverlay {
  name: string;
  weight: number;
  /** The overlay's change as written: `price: 0.05` or `priceAdjustment: -20%`. */
  adjustment: string;
  basePrice: number;
}

/** A NodeOverlay as it set one extended resource on a type. */
export interface AppliedCapacityOverlay {
  name: string;
  weight: number;
  /** The quantity as the overlay wrote it. */
  quantity: string;
}

/** An offering the cloud recently refused (insufficient capacity), skipped until it expires. */
export interface UnavailableOffering {
  instanceType: string;
  zone: string;
  capacityType: CapacityType;
  /** For a `reserved` offering: the reservation that refused it; other reservations of the type and zone stay open. */
  reservationId?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  reason?: string;
}
