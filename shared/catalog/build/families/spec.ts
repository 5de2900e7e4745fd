// The shape of a family row and the size lists and helpers the family groups share. Sizes, on-demand prices and ENI
// figures are aligned lists (one entry per size, in the order of `sizes`). Provenance is in docs/catalog.md.
import type { Arch } from '../../types';

export interface FamilySpec {
  family: string;
  arch: Arch;
  cpu: 'intel' | 'amd' | 'aws';
  /** Sustained all-core clock (MHz), approximate. */
  clock: number;
  sizes: string;
  /** us-east-1 Linux on-demand $/h, aligned with sizes (Karpenter's zz_generated.pricing_aws.go). */
  od: string;
  /** GiB of memory per vCPU, or `mem` with explicit GiB per size. */
  ratio?: number;
  mem?: string;
  /** vCPUs of the `metal` size (named metal sizes carry theirs). */
  metalVcpu?: number;
  /** Ladder name in ENI, or an aligned list of "maxPods/customNetworkingPods/branchENIs". */
  eni: string;
  /** Per-size ENI overrides on a ladder. */
  eniOverride?: Record<string, string>;
  /** Ladder name in BANDWIDTH, or an aligned list of Mbps. */
  bw: string;
  /** Ladder name in EBS; defaults by generation. */
  ebs?: string;
  /** Ladder name in NVME, or an aligned list of GB. */
  nvme?: string;
  gpu?: { name: string; manufacturer: 'nvidia' | 'amd'; memoryMiB: number; counts: string };
  accelerator?: { name: string; coresPerDevice: number; counts: string };
  /** EFA interfaces per size, aligned (0 = none). */
  efa?: string;
  encryptionInTransit: boolean;
  /** Non-metal sizes run on Xen (the older families). */
  xen?: boolean;
  flex?: boolean;
}

export const M5 = 'large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge metal';
export const M5A = 'large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge';
export const C5 = 'large xlarge 2xlarge 4xlarge 9xlarge 12xlarge 18xlarge 24xlarge metal';
export const M6I = 'large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 32xlarge metal';
export const M6A = 'large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 32xlarge 48xlarge metal';
export const G2 = 'medium large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge metal';
export const M7A =
  'medium large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 32xlarge 48xlarge metal-48xl';
export const M7I = 'large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 48xlarge metal-24xl metal-48xl';
export const FLEX = 'large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge';
export const G4 =
  'medium large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 48xlarge metal-24xl metal-48xl';
export const T = 'nano micro small medium large xlarge 2xlarge';
export const GPU8 = 'xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 48xlarge';
export const N6_BIG = { '32xlarge': '394/345/106', metal: '394/345/106' };
export const METAL120 = { metal: '737/688/120' };
/** What the 6th-generation Intel families share (m6i, c6i, r6i and their d variants): M6I's sizes at 3.5 GHz and a
 * 128-vCPU metal. */
export const N6_INTEL = {
  clock: 3500,
  sizes: M6I,
  metalVcpu: 128,
  eni: 'nitro6',
  bw: 'gen6',
  encryptionInTransit: true,
} satisfies Partial<FamilySpec>;
/** The network-optimized ones (c6in, m6in, r6in, and m6idn, r6idn with local NVMe) add the larger ENI limits at the
 * top, their bandwidth, and EFA on the two largest sizes. */
export const N6_NETWORK = {
  ...N6_INTEL,
  eniOverride: N6_BIG,
  bw: 'gen6Network',
  ebs: 'gen6Network',
  efa: '0 0 0 0 0 0 0 0 2 2',
} satisfies Partial<FamilySpec>;

// What each generation's general, compute and memory families (m, c, r) share; a family row adds its prices, its
// memory ratio and what sets it apart (local NVMe, EBS, network).
/** 5th-generation Intel (m5, r5 and their b, d variants): M5's sizes at 3.1 GHz and a 96-vCPU metal. */
export const N5_INTEL = {
  clock: 3100,
  sizes: M5,
  metalVcpu: 96,
  eni: 'nitro5',
  bw: 'gen5Intel',
  encryptionInTransit: false,
} satisfies Partial<FamilySpec>;
/** Their network-optimized ones (m5n, r5n and the d variants): more bandwidth, and encryption in transit. */
export const N5_NETWORK = {
  ...N5_INTEL,
  bw: 'gen5Network',
  encryptionInTransit: true,
} satisfies Partial<FamilySpec>;
/** 5th-generation AMD (m5a, r5a and their d variants). */
export const N5_AMD = {
  clock: 2500,
  sizes: M5A,
  eni: 'nitro5',
  bw: 'gen5Amd',
  ebs: 'gen5Amd',
  encryptionInTransit: false,
} satisfies Partial<FamilySpec>;
/** 6th-generation AMD (m6a, c6a, r6a). */
export const N6_AMD = {
  clock: 3600,
  sizes: M6A,
  metalVcpu: 192,
  eni: 'nitro6',
  bw: 'gen6',
  encryptionInTransit: true,
} satisfies Partial<FamilySpec>;
/** 7th-generation AMD (m7a, c7a, r7a). */
export const N7_AMD = {
  clock: 3700,
  sizes: M7A,
  eni: 'nitro6',
  bw: 'gen6',
  encryptionInTransit: true,
} satisfies Partial<FamilySpec>;
/** 7th-generation Intel (m7i, c7i, r7i). */
export const N7_INTEL = {
  clock: 3200,
  sizes: M7I,
  eni: 'nitro6',
  bw: 'gen6',
  encryptionInTransit: true,
} satisfies Partial<FamilySpec>;
/** The 7th-generation Intel flex families (m7i-flex, c7i-flex); their ENI limits differ. */
export const FLEX_INTEL = {
  clock: 3200,
  sizes: FLEX,
  bw: 'flex',
  encryptionInTransit: true,
  flex: true,
} satisfies Partial<FamilySpec>;
/** Graviton2 (m6g, c6g, r6g and their d variants). */
export const GRAVITON2 = {
  clock: 2500,
  sizes: G2,
  metalVcpu: 64,
  eni: 'nitro5',
  bw: 'graviton2',
  encryptionInTransit: false,
} satisfies Partial<FamilySpec>;
/** Graviton3 (m7g, c7g, r7g and their d variants). */
export const GRAVITON3 = {
  clock: 2600,
  sizes: G2,
  metalVcpu: 64,
  eni: 'nitro5',
  bw: 'graviton3',
  encryptionInTransit: true,
} satisfies Partial<FamilySpec>;
/** Graviton4 (m8g, c8g, r8g). */
export const GRAVITON4 = {
  clock: 2800,
  sizes: G4,
  eni: 'graviton4',
  bw: 'graviton4',
  encryptionInTransit: true,
} satisfies Partial<FamilySpec>;

export const intel = (o: Omit<FamilySpec, 'arch' | 'cpu'>): FamilySpec => ({ arch: 'amd64', cpu: 'intel', ...o });
export const amd = (o: Omit<FamilySpec, 'arch' | 'cpu'>): FamilySpec => ({ arch: 'amd64', cpu: 'amd', ...o });
export const graviton = (o: Omit<FamilySpec, 'arch' | 'cpu'>): FamilySpec => ({ arch: 'arm64', cpu: 'aws', ...o });
