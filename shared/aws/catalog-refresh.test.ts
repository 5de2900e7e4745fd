// aws-sdk-client-mock: the refresh reads the Pricing API, which moto does not serve, and pages it asserts token by token.
import {
  DescribeAvailabilityZonesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  EC2Client,
  type InstanceTypeInfo as Ec2InstanceType,
} from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeAllocatable } from '../catalog/allocatable';
import { validateCatalog } from '../catalog/validate';
import { parsePriceListItem, refreshCatalog, toInstanceTypeInfo } from './catalog-refresh';

const ec2Mock = mockClient(EC2Client);
const pricingMock = mockClient(PricingClient);

const m5Large: Ec2InstanceType = {
  InstanceType: 'm5.large',
  CurrentGeneration: true,
  BareMetal: false,
  Hypervisor: 'nitro',
  ProcessorInfo: { SupportedArchitectures: ['x86_64'], SustainedClockSpeedInGhz: 3.1, Manufacturer: 'Intel' },
  VCpuInfo: { DefaultVCpus: 2 },
  MemoryInfo: { SizeInMiB: 8192 },
  NetworkInfo: {
    MaximumNetworkInterfaces: 3,
    Ipv4AddressesPerInterface: 10,
    DefaultNetworkCardIndex: 0,
    NetworkCards: [{ NetworkCardIndex: 0, MaximumNetworkInterfaces: 3, BaselineBandwidthInGbps: 0.75 }],
    EncryptionInTransitSupported: false,
  },
  EbsInfo: {
    EbsOptimizedInfo: { MaximumBandwidthInMbps: 4750 },
    MaximumEbsAttachments: 27,
    AttachmentLimitType: 'shared',
  },
};
const g5Xlarge: Ec2InstanceType = {
  InstanceType: 'g5.xlarge',
  CurrentGeneration: true,
  Hypervisor: 'nitro',
  ProcessorInfo: { SupportedArchitectures: ['x86_64'], Manufacturer: 'AMD' },
  VCpuInfo: { DefaultVCpus: 4 },
  MemoryInfo: { SizeInMiB: 16384 },
  GpuInfo: { Gpus: [{ Name: 'A10G', Manufacturer: 'NVIDIA', Count: 1, MemoryInfo: { SizeInMiB: 24576 } }] },
  NetworkInfo: { MaximumNetworkInterfaces: 4, Ipv4AddressesPerInterface: 15, EncryptionInTransitSupported: true },
  InstanceStorageInfo: { TotalSizeInGB: 250, NvmeSupport: 'required' },
  EbsInfo: { MaximumEbsAttachments: 25, AttachmentLimitType: 'shared' },
};
const m6gMetal: Ec2InstanceType = {
  InstanceType: 'm6g.metal',
  BareMetal: true,
  ProcessorInfo: { SupportedArchitectures: ['arm64'], Manufacturer: 'AWS' },
  VCpuInfo: { DefaultVCpus: 64 },
  MemoryInfo: { SizeInMiB: 262144 },
  NetworkInfo: { MaximumNetworkInterfaces: 15, Ipv4AddressesPerInterface: 50 },
};
const inf2: Ec2InstanceType = {
  InstanceType: 'inf2.xlarge',
  Hypervisor: 'nitro',
  ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
  VCpuInfo: { DefaultVCpus: 4 },
  MemoryInfo: { SizeInMiB: 16384 },
  NeuronInfo: { NeuronDevices: [{ Name: 'Inferentia2', Count: 1, CoreInfo: { Count: 2 } }] },
  NetworkInfo: { MaximumNetworkInterfaces: 4, Ipv4AddressesPerInterface: 15 },
};
const noPrice: Ec2InstanceType = { ...m5Large, InstanceType: 'm5.xlarge' };

const priceDoc = (instanceType: string, usd: string) =>
  JSON.stringify({
    product: { attributes: { instanceType, operatingSystem: 'Linux' } },
    terms: {
      OnDemand: {
        'ABC.JRTCKXETXF': { priceDimensions: { 'ABC.JRTCKXETXF.6YS6EN2CT7': { pricePerUnit: { USD: usd } } } },
      },
    },
  });

beforeEach(() => {
  ec2Mock.reset();
  pricingMock.reset();
  ec2Mock.on(DescribeAvailabilityZonesCommand).resolves({
    AvailabilityZones: [
      { ZoneName: 'us-west-2b', ZoneId: 'usw2-az1', State: 'available' },
      { ZoneName: 'us-west-2a', ZoneId: 'usw2-az2', State: 'available' },
    ],
  });
  ec2Mock
    .on(DescribeInstanceTypesCommand)
    .resolves({ InstanceTypes: [m5Large, g5Xlarge], NextToken: 'page-2' })
    .on(DescribeInstanceTypesCommand, { NextToken: 'page-2' })
    .resolves({ InstanceTypes: [m6gMetal, inf2, noPrice] });
  ec2Mock
    .on(DescribeInstanceTypeOfferingsCommand)
    .resolves({
      InstanceTypeOfferings: [
        { InstanceType: 'm5.large', Location: 'us-west-2a', LocationType: 'availability-zone' },
        { InstanceType: 'm5.large', Location: 'us-west-2b', LocationType: 'availability-zone' },
        { InstanceType: 'g5.xlarge', Location: 'us-west-2b', LocationType: 'availability-zone' },
      ],
      NextToken: 'offerings-2',
    })
    .on(DescribeInstanceTypeOfferingsCommand, { NextToken: 'offerings-2' })
    .resolves({
      InstanceTypeOfferings: [
        { InstanceType: 'm6g.metal', Location: 'us-west-2a' },
        { InstanceType: 'inf2.xlarge', Location: 'us-west-2a' },
        { InstanceType: 'm5.xlarge', Location: 'us-west-2a' },
        { InstanceType: 'm5.large', Location: 'us-west-2-lax-1a' },
      ],
    });
  pricingMock
    .on(GetProductsCommand)
    .resolves({
      PriceList: [priceDoc('m5.large', '0.0960000000'), priceDoc('g5.xlarge', '1.0060000000')],
      NextToken: 'p2',
    })
    .on(GetProductsCommand, { NextToken: 'p2' })
    .resolves({
      PriceList: [
        priceDoc('m6g.metal', '2.4640000000'),
        priceDoc('inf2.xlarge', '0.7582000000'),
        priceDoc('m5.large', '0.0000000000'),
      ],
    });
  ec2Mock
    .on(DescribeSpotPriceHistoryCommand)
    .resolves({
      SpotPriceHistory: [
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-west-2a',
          SpotPrice: '0.0400',
          Timestamp: new Date('2026-01-01T00:00:00Z'),
        },
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-west-2a',
          SpotPrice: '0.0350',
          Timestamp: new Date('2026-01-02T00:00:00Z'),
        },
      ],
      NextToken: 'spot-2',
    })
    .on(DescribeSpotPriceHistoryCommand, { NextToken: 'spot-2' })
    .resolves({
      SpotPriceHistory: [
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-west-2b',
          SpotPrice: '0.0420',
          Timestamp: new Date('2026-01-02T00:00:00Z'),
        },
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-west-2a',
          SpotPrice: '0.0500',
          Timestamp: new Date('2025-12-31T00:00:00Z'),
        },
        {
          InstanceType: 'g5.xlarge',
          AvailabilityZone: 'us-west-2c',
          SpotPrice: '0.3000',
          Timestamp: new Date('2026-01-02T00:00:00Z'),
        },
      ],
      NextToken: '',
    });
});
afterEach(() => {
  ec2Mock.reset();
  pricingMock.reset();
});

const NOW = new Date('2026-01-02T12:00:00Z');
const refresh = (progress?: (m: string) => void) =>
  refreshCatalog({
    region: 'us-west-2',
    ec2: new EC2Client({ region: 'us-west-2' }),
    pricing: new PricingClient({ region: 'us-east-1' }),
    now: NOW,
    ...(progress ? { progress } : {}),
    known: validateCatalog(
      {
        region: 'us-east-1',
        zones: [{ name: 'us-east-1a', id: 'use1-az4' }],
        types: [
          {
            name: 'm5.large',
            family: 'm5',
            category: 'm',
            generation: 5,
            size: 'large',
            vcpu: 2,
            memoryMiB: 8192,
            arch: 'amd64',
            maxEnis: 3,
            ipv4PerEni: 10,
            branchEnis: 9,
            networkBandwidthMbps: 750,
            hypervisor: 'nitro',
            bareMetal: false,
            currentGeneration: true,
            onDemandPrice: 0.096,
            spotPrice: {},
            zones: ['us-east-1a'],
          },
        ],
      },
      'known',
    ),
  });

describe('refreshCatalog', () => {
  it('sends the documented requests, following every pagination token', async () => {
    await refresh();
    expect(ec2Mock.commandCalls(DescribeAvailabilityZonesCommand)[0]?.args[0].input).toEqual({
      Filters: [
        { Name: 'region-name', Values: ['us-west-2'] },
        { Name: 'zone-type', Values: ['availability-zone'] },
      ],
    });
    const typeCalls = ec2Mock.commandCalls(DescribeInstanceTypesCommand).map((c) => c.args[0].input);
    expect(typeCalls.map((i) => i.NextToken)).toEqual([undefined, 'page-2']);
    expect(typeCalls[0]?.Filters).toEqual([
      { Name: 'supported-virtualization-type', Values: ['hvm'] },
      { Name: 'processor-info.supported-architecture', Values: ['x86_64', 'arm64'] },
    ]);
    const offeringCalls = ec2Mock.commandCalls(DescribeInstanceTypeOfferingsCommand).map((c) => c.args[0].input);
    expect(offeringCalls).toEqual([
      { LocationType: 'availability-zone', MaxResults: 1000, NextToken: undefined },
      { LocationType: 'availability-zone', MaxResults: 1000, NextToken: 'offerings-2' },
    ]);
    const productCalls = pricingMock.commandCalls(GetProductsCommand).map((c) => c.args[0].input);
    const os = (i: (typeof productCalls)[number]) => i.Filters?.find((f) => f.Field === 'operatingSystem')?.Value;
    expect(productCalls.map((i) => `${os(i)} ${i.NextToken}`)).toEqual([
      'Linux undefined',
      'Linux p2',
      'Windows undefined',
      'Windows p2',
    ]);
    expect(productCalls[0]).toMatchObject({ ServiceCode: 'AmazonEC2', FormatVersion: 'aws_v1' });
    const common = [
      { Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-west-2' },
      { Type: 'TERM_MATCH', Field: 'tenancy', Value: 'Shared' },
      { Type: 'TERM_MATCH', Field: 'preInstalledSw', Value: 'NA' },
      { Type: 'TERM_MATCH', Field: 'capacitystatus', Value: 'Used' },
    ];
    expect(productCalls[0]?.Filters).toEqual([
      common[0],
      { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Linux' },
      ...common.slice(1),
    ]);
    // Windows asks for the License Included SKUs only: a BYOL SKU is cheaper and would win the lowest price.
    expect(productCalls[2]?.Filters).toEqual([
      common[0],
      { Type: 'TERM_MATCH', Field: 'operatingSystem', Value: 'Windows' },
      ...common.slice(1),
      { Type: 'TERM_MATCH', Field: 'licenseModel', Value: 'No License required' },
    ]);
    const spotCalls = ec2Mock.commandCalls(DescribeSpotPriceHistoryCommand).map((c) => c.args[0].input);
    expect(spotCalls).toEqual([
      { ProductDescriptions: ['Linux/UNIX'], StartTime: NOW, MaxResults: 1000, NextToken: undefined },
      { ProductDescriptions: ['Linux/UNIX'], StartTime: NOW, MaxResults: 1000, NextToken: 'spot-2' },
      { ProductDescriptions: ['Windows'], StartTime: NOW, MaxResults: 1000, NextToken: undefined },
      { ProductDescriptions: ['Windows'], StartTime: NOW, MaxResults: 1000, NextToken: 'spot-2' },
    ]);
  });

  it('builds a valid catalog with zones, prices, latest spot prices and device facts', async () => {
    const messages: string[] = [];
    const catalog = await refresh((m) => messages.push(m));
    expect(() => validateCatalog(JSON.parse(JSON.stringify(catalog)), 'refreshed')).not.toThrow();
    expect(catalog.region).toBe('us-west-2');
    expect(catalog.generatedAt).toBe(NOW.toISOString());
    expect(catalog.zones).toEqual([
      { name: 'us-west-2a', id: 'usw2-az2' },
      { name: 'us-west-2b', id: 'usw2-az1' },
    ]);
    expect(catalog.types.map((t) => t.name)).toEqual(['g5.xlarge', 'inf2.xlarge', 'm5.large', 'm6g.metal']);
    const m5 = catalog.types.find((t) => t.name === 'm5.large');
    expect(m5).toMatchObject({
      family: 'm5',
      category: 'm',
      generation: 5,
      size: 'large',
      vcpu: 2,
      memoryMiB: 8192,
      arch: 'amd64',
      cpuManufacturer: 'intel',
      cpuClockMhz: 3100,
      maxEnis: 3,
      ipv4PerEni: 10,
      branchEnis: 9,
      networkBandwidthMbps: 750,
      ebsBandwidthMbps: 4750,
      maxEbsAttachments: 27,
      ebsAttachmentLimitType: 'shared',
      hypervisor: 'nitro',
      onDemandPrice: 0.096,
      spotPrice: { 'us-west-2a': 0.035, 'us-west-2b': 0.042 },
      zones: ['us-west-2a', 'us-west-2b'],
    });
    expect(m5 && computeAllocatable(m5).allocatable.cpu).toBe(1930);
    const g5 = catalog.types.find((t) => t.name === 'g5.xlarge');
    expect(g5).toMatchObject({
      gpu: { count: 1, name: 'a10g', manufacturer: 'nvidia', memoryMiB: 24576 },
      localNvmeGiB: 250,
      maxEbsAttachments: 25,
      ebsAttachmentLimitType: 'shared',
    });
    expect(g5?.spotPrice).toEqual({});
    expect(catalog.types.find((t) => t.name === 'm6g.metal')).toMatchObject({
      arch: 'arm64',
      bareMetal: true,
      hypervisor: '',
      branchEnis: 0,
      cpuManufacturer: 'aws',
    });
    expect(catalog.types.find((t) => t.name === 'inf2.xlarge')?.accelerator).toEqual({
      count: 1,
      name: 'inferentia2',
      manufacturer: 'aws',
      cores: 2,
    });
    expect(messages[messages.length - 1]).toMatch(/built 4 instance types; left out 1 without a Linux on-demand price/);
    expect(messages.some((m) => m.includes('DescribeInstanceTypes: 5 instance types (2 pages)'))).toBe(true);
  });

  it('prices x86 types for Windows from the Windows queries, and Graviton types not at all', async () => {
    const windowsDoc = (instanceType: string, usd: string) => priceDoc(instanceType, usd).replace('Linux', 'Windows');
    pricingMock.on(GetProductsCommand).callsFake((input: { Filters?: { Field?: string; Value?: string }[] }) => {
      const windows = input.Filters?.some((f) => f.Field === 'operatingSystem' && f.Value === 'Windows');
      return windows
        ? { PriceList: [windowsDoc('m5.large', '0.1880000000'), windowsDoc('m6g.metal', '9.0000000000')] }
        : { PriceList: [priceDoc('m5.large', '0.0960000000'), priceDoc('m6g.metal', '2.4640000000')] };
    });
    ec2Mock.on(DescribeSpotPriceHistoryCommand).callsFake((input: { ProductDescriptions?: string[] }) => ({
      SpotPriceHistory: [
        {
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-west-2b',
          SpotPrice: input.ProductDescriptions?.[0] === 'Windows' ? '0.1250' : '0.0330',
          Timestamp: new Date('2026-01-02T00:00:00Z'),
        },
      ],
    }));
    const messages: string[] = [];
    const catalog = await refresh((m) => messages.push(m));
    expect(() => validateCatalog(JSON.parse(JSON.stringify(catalog)), 'refreshed')).not.toThrow();
    const m5 = catalog.types.find((t) => t.name === 'm5.large');
    expect(m5).toMatchObject({ onDemandPrice: 0.096, spotPrice: { 'us-west-2b': 0.033 } });
    expect(m5?.windows).toEqual({ onDemandPrice: 0.188, spotPrice: { 'us-west-2b': 0.125 } });
    expect(catalog.types.find((t) => t.name === 'm6g.metal')?.windows).toBeUndefined();
    expect(messages[messages.length - 1]).toMatch(/; 1 priced for Windows$/);
  });

  it('fails with the AWS error when a call is refused', async () => {
    ec2Mock.on(DescribeInstanceTypesCommand).rejects(new Error('UnauthorizedOperation: not allowed'));
    await expect(refresh()).rejects.toThrow(/UnauthorizedOperation/);
  });
});

describe('parsePriceListItem and toInstanceTypeInfo', () => {
  it('reads the on-demand $/h and ignores zero or missing prices', () => {
    expect(parsePriceListItem(priceDoc('c5.large', '0.085'))).toEqual({ instanceType: 'c5.large', price: 0.085 });
    expect(parsePriceListItem(priceDoc('c5.large', '0'))).toBeUndefined();
    expect(parsePriceListItem(JSON.stringify({ product: {} }))).toBeUndefined();
  });

  it('skips types without a usable architecture or ENI facts', () => {
    const facts = { zones: ['a'], onDemandPrice: 1, spotPrice: {} };
    expect(
      toInstanceTypeInfo({ ...m5Large, ProcessorInfo: { SupportedArchitectures: ['x86_64_mac'] } }, facts),
    ).toBeUndefined();
    expect(toInstanceTypeInfo({ ...m5Large, NetworkInfo: {} }, facts)).toBeUndefined();
    expect(
      toInstanceTypeInfo({ ...m5Large, InstanceType: 'weird' as Ec2InstanceType['InstanceType'] }, facts),
    ).toBeUndefined();
  });
});
