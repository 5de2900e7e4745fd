// aws-sdk-client-mock for `catalog refresh`: it reads the Pricing API, which moto does not serve.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeAvailabilityZonesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../shared/catalog';
import { bufferIO } from '../io';
import { main } from '../main';

const dir = mkdtempSync(join(tmpdir(), 'karpless-catalog-cli-'));
async function run(...args: string[]) {
  const io = bufferIO();
  const code = await main(args, io);
  return { code, out: io.stdout.join(''), err: io.stderr.join('') };
}
interface JsonType {
  name: string;
  arch: string;
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  labels: Record<string, string>;
  onDemandPrice: number;
  cheapestSpotPrice: number | null;
  spotPriceSource: string | null;
  gpu?: unknown;
  accelerator?: unknown;
  offerings: { zone: string; capacityType: string; price: number; priceSource?: string; available: boolean }[];
}

describe('karpless catalog', () => {
  it('prints JSON with capacity, allocatable, labels and prices', async () => {
    const { code, out, err } = await run('catalog', '--output', 'json', '--family', 'm5');
    expect(code).toBe(0);
    expect(err).toBe('');
    const json = JSON.parse(out) as { region: string; count: number; instanceTypes: JsonType[] };
    expect(json.region).toBe('us-east-1');
    expect(json.count).toBe(9);
    const m5 = json.instanceTypes.find((t) => t.name === 'm5.large');
    expect(m5?.capacity).toMatchObject({ cpu: '2', memory: '7577Mi', pods: '29' });
    expect(m5?.allocatable).toMatchObject({ cpu: '1930m', memory: '6903Mi', pods: '29', 'ephemeral-storage': '17Gi' });
    expect(m5?.labels['karpenter.k8s.aws/instance-family']).toBe('m5');
    expect(m5?.onDemandPrice).toBe(0.096);
    expect(m5?.cheapestSpotPrice).toBe(
      Math.min(...(m5?.offerings ?? []).filter((o) => o.capacityType === 'spot').map((o) => o.price)),
    );
    // Spot prices are the snapshot's estimates; on-demand prices are AWS's.
    expect(m5?.spotPriceSource).toBe('estimate');
    expect(new Set(m5?.offerings.map((o) => `${o.capacityType}:${o.priceSource ?? 'catalog'}`))).toEqual(
      new Set(['spot:estimate', 'on-demand:catalog']),
    );
  });

  it('prints a table with one row per type and a summary', async () => {
    const { code, out } = await run('catalog', '--family', 'm5,c5');
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^NAME\s+ARCH\s+VCPU\s+MEMORY\s+PODS\s+ALLOC CPU\s+ALLOC MEM\s+ACCEL\s+OD \$\/H\s+SPOT \$\/H\s+ZONES$/,
    );
    const m5 = lines.find((l) => l.startsWith('m5.large '));
    expect(m5?.split(/\s+/)).toEqual(
      expect.arrayContaining(['amd64', '2', '8Gi', '29', '1930m', '6903Mi', '0.0960', 'abcdef']),
    );
    expect(lines[lines.length - 1]).toMatch(/^18 instance types in 2 families; us-east-1 \(6 zones\)/);
    // The embedded snapshot's spot prices are derived: each says so, and a line says what `~` means.
    expect(m5?.split(/\s+/).at(-2)).toMatch(/^~0\.\d{4}$/);
    expect(lines[lines.length - 2]).toMatch(/^~ marks estimated spot prices/);
  });

  it('filters by architecture and acceleration', async () => {
    const arm = JSON.parse((await run('catalog', '-o', 'json', '--arch', 'arm64')).out) as {
      instanceTypes: JsonType[];
    };
    expect(arm.instanceTypes.length).toBeGreaterThan(50);
    expect(arm.instanceTypes.every((t) => t.arch === 'arm64')).toBe(true);
    const acc = JSON.parse((await run('catalog', '-o', 'json', '--accelerated')).out) as { instanceTypes: JsonType[] };
    expect(acc.instanceTypes.every((t) => t.gpu || t.accelerator)).toBe(true);
    expect(acc.instanceTypes.map((t) => t.name)).toEqual(
      expect.arrayContaining(['p5.48xlarge', 'inf2.xlarge', 'g4ad.xlarge']),
    );
  });

  it('computes allocatable for an EC2NodeClass from a YAML file', async () => {
    const file = join(dir, 'nodeclass.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: karpenter.k8s.aws/v1',
        'kind: EC2NodeClass',
        'metadata:',
        '  name: big-pods',
        'spec:',
        '  role: KarpenterNodeRole',
        '  amiSelectorTerms: [{ alias: al2023@latest }]',
        '  subnetSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]',
        '  securityGroupSelectorTerms: [{ tags: { karpenter.sh/discovery: demo } }]',
        '  kubelet: { maxPods: 110 }',
        '  blockDeviceMappings:',
        '    - deviceName: /dev/xvda',
        '      rootVolume: true',
        '      ebs: { volumeSize: 100Gi }',
        '',
      ].join('\n'),
    );
    const { code, out, err } = await run('catalog', '-o', 'json', '--family', 'm5', '--node-class', file);
    expect(err).toBe('');
    expect(code).toBe(0);
    const json = JSON.parse(out) as { nodeClass: string; instanceTypes: JsonType[] };
    expect(json.nodeClass).toBe('big-pods');
    const m5 = json.instanceTypes.find((t) => t.name === 'm5.large');
    expect(m5?.allocatable).toMatchObject({ pods: '110', memory: '6012Mi', 'ephemeral-storage': '89Gi' });
  });

  it('uses --catalog FILE and reports a bad one with exit 2, naming the file and field', async () => {
    const embedded = loadCatalog();
    const good = join(dir, 'small.json');
    writeFileSync(good, JSON.stringify({ ...embedded, types: embedded.types.filter((t) => t.family === 't3') }));
    const small = JSON.parse((await run('catalog', '-o', 'json', '--catalog', good)).out) as { count: number };
    expect(small.count).toBe(7);
    const bad = join(dir, 'catalog.json');
    const types = embedded.types.slice(0, 5).map((t, i) => (i === 3 ? { ...t, vcpu: -1 } : t));
    writeFileSync(bad, JSON.stringify({ ...embedded, types }));
    const { code, out, err } = await run('catalog', '--catalog', bad);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`${bad}: types[3].vcpu: must be a positive number`);
  });

  it('exits 2 on bad options', async () => {
    for (const args of [
      ['catalog', '--output', 'yaml'],
      ['catalog', '--family', 'm55'],
      ['catalog', '--category', 'q'],
      ['catalog', '--arch', 'sparc'],
      ['catalog', '--node-class', join(dir, 'missing.yaml')],
      ['catalog', 'refresh'],
      ['catalog', 'refresh', '--region', 'Mars'],
    ]) {
      const { code, out, err } = await run(...args);
      expect({ args, code, outEmpty: out === '' }).toEqual({ args, code: 2, outEmpty: true });
      expect(err).not.toBe('');
    }
  });
});

describe('karpless catalog refresh', () => {
  const ec2 = mockClient(EC2Client);
  const pricing = mockClient(PricingClient);
  afterAll(() => {
    ec2.restore();
    pricing.restore();
  });
  const mockAccount = () => {
    ec2.reset();
    pricing.reset();
    ec2.on(DescribeAvailabilityZonesCommand).resolves({
      AvailabilityZones: [{ ZoneName: 'eu-west-1a', ZoneId: 'euw1-az3', State: 'available' }],
    });
    ec2.on(DescribeInstanceTypesCommand).resolves({
      InstanceTypes: [
        {
          InstanceType: 'c5.large',
          Hypervisor: 'nitro',
          CurrentGeneration: true,
          ProcessorInfo: { SupportedArchitectures: ['x86_64'], Manufacturer: 'Intel' },
          VCpuInfo: { DefaultVCpus: 2 },
          MemoryInfo: { SizeInMiB: 4096 },
          NetworkInfo: { MaximumNetworkInterfaces: 3, Ipv4AddressesPerInterface: 10 },
        },
      ],
    });
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
      InstanceTypeOfferings: [{ InstanceType: 'c5.large', Location: 'eu-west-1a' }],
    });
    ec2.on(DescribeSpotPriceHistoryCommand).resolves({
      SpotPriceHistory: [
        { InstanceType: 'c5.large', AvailabilityZone: 'eu-west-1a', SpotPrice: '0.031', Timestamp: new Date() },
      ],
    });
    pricing.on(GetProductsCommand).resolves({
      PriceList: [
        JSON.stringify({
          product: { attributes: { instanceType: 'c5.large' } },
          terms: { OnDemand: { t: { priceDimensions: { d: { pricePerUnit: { USD: '0.0960000000' } } } } } },
        }),
      ],
    });
  };

  it('writes a catalog file that --catalog then loads', async () => {
    mockAccount();
    const out = join(dir, 'eu.json');
    const { code, out: stdout, err } = await run('catalog', 'refresh', '--region', 'eu-west-1', '--out', out);
    expect(code).toBe(0);
    expect(stdout).toContain(`wrote ${out}: 1 instance types in 1 zones of eu-west-1`);
    expect(err).toContain('DescribeInstanceTypes: 1 instance types (1 pages)');
    expect(pricing.commandCalls(GetProductsCommand)[0]?.args[0].input.Filters).toContainEqual({
      Type: 'TERM_MATCH',
      Field: 'regionCode',
      Value: 'eu-west-1',
    });
    const written = loadCatalog(out);
    expect(written.types[0]).toMatchObject({
      name: 'c5.large',
      onDemandPrice: 0.096,
      spotPrice: { 'eu-west-1a': 0.031 },
      branchEnis: 9,
    });
    expect(readFileSync(out, 'utf8').split('\n')[1]).toMatch(/^\{"name":"c5.large"/);
    const listed = JSON.parse((await run('catalog', '-o', 'json', '--catalog', out)).out) as {
      region: string;
      count: number;
    };
    expect(listed).toMatchObject({ region: 'eu-west-1', count: 1 });
  });

  it('takes --catalog after refresh as the source of branch ENIs', async () => {
    mockAccount();
    const embedded = loadCatalog();
    const known = join(dir, 'known.json');
    const c5 = embedded.types.find((t) => t.name === 'c5.large');
    writeFileSync(known, JSON.stringify({ ...embedded, types: [{ ...c5, branchEnis: 3 }] }));
    const out = join(dir, 'eu2.json');
    expect((await run('catalog', 'refresh', '--region', 'eu-west-1', '--out', out, '--catalog', known)).code).toBe(0);
    expect(loadCatalog(out).types[0]?.branchEnis).toBe(3);
  });

  it('exits 1 and writes nothing when AWS refuses', async () => {
    mockAccount();
    ec2.on(DescribeInstanceTypesCommand).rejects(new Error('AuthFailure: credentials rejected'));
    const out = join(dir, 'never.json');
    const { code, err } = await run('catalog', 'refresh', '--region', 'eu-west-1', '--out', out);
    expect(code).toBe(1);
    expect(err).toContain('karpless catalog refresh: AuthFailure: credentials rejected');
    // Progress lines go to stderr too; the failure is the last line, and one line.
    expect(err.trimEnd().split('\n').at(-1)).toBe('karpless catalog refresh: AuthFailure: credentials rejected');
    expect(() => readFileSync(out)).toThrow();
  });
});
