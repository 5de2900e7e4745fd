// The embedded snapshot: coverage the issue asks for, the facts of the common types, and that it is exactly what
// the committed generator produces.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from './build/generate';
import { loadCatalog } from './load';
import { serializeCatalog } from './serialize';

const catalog = loadCatalog();
const byName = new Map(catalog.types.map((t) => [t.name, t]));
const get = (name: string) => {
  const t = byName.get(name);
  if (!t) throw new Error(`${name} missing`);
  return t;
};

describe('embedded us-east-1 snapshot', () => {
  it('has at least 500 types in at least 50 families across all six zones', () => {
    expect(catalog.types.length).toBeGreaterThanOrEqual(500);
    expect(new Set(catalog.types.map((t) => t.family)).size).toBeGreaterThanOrEqual(50);
    expect(catalog.zones.map((z) => z.name)).toEqual([
      'us-east-1a',
      'us-east-1b',
      'us-east-1c',
      'us-east-1d',
      'us-east-1e',
      'us-east-1f',
    ]);
    expect(new Set(catalog.zones.map((z) => z.id))).toEqual(
      new Set(['use1-az1', 'use1-az2', 'use1-az3', 'use1-az4', 'use1-az5', 'use1-az6']),
    );
    const offered = new Set(catalog.types.flatMap((t) => t.zones));
    expect(offered.size).toBe(6);
  });

  it('covers every required family', () => {
    const families = new Set(catalog.types.map((t) => t.family));
    const required = [
      ...['m5', 'm5a', 'm5d', 'm5n', 'm6i', 'm6id', 'm6a', 'm6g', 'm7i', 'm7a', 'm7g'],
      ...['c5', 'c5a', 'c5d', 'c5n', 'c6i', 'c6a', 'c6g', 'c6gn', 'c7i', 'c7a', 'c7g'],
      ...['r5', 'r5a', 'r5d', 'r6i', 'r6a', 'r6g', 'r7i', 'r7g', 'x2idn'],
      ...['t3', 't3a', 't4g', 'i3', 'i3en', 'i4i', 'd3'],
      ...['g4dn', 'g5', 'g6', 'p4d', 'p5', 'inf1', 'inf2'],
    ];
    expect(required.filter((f) => !families.has(f))).toEqual([]);
  });

  it('carries the real facts of the common types', () => {
    expect(get('m5.large')).toMatchObject({
      vcpu: 2,
      memoryMiB: 8192,
      maxEnis: 3,
      ipv4PerEni: 10,
      onDemandPrice: 0.096,
    });
    expect(get('c5.xlarge')).toMatchObject({
      vcpu: 4,
      memoryMiB: 8192,
      maxEnis: 4,
      ipv4PerEni: 15,
      onDemandPrice: 0.17,
    });
    expect(get('r5.large')).toMatchObject({ vcpu: 2, memoryMiB: 16384, onDemandPrice: 0.126 });
    expect(get('t3.medium')).toMatchObject({
      vcpu: 2,
      memoryMiB: 4096,
      maxEnis: 3,
      ipv4PerEni: 6,
      onDemandPrice: 0.0416,
    });
    expect(get('m6g.large')).toMatchObject({ arch: 'arm64', vcpu: 2, memoryMiB: 8192, onDemandPrice: 0.077 });
    expect(get('g4dn.xlarge')).toMatchObject({ vcpu: 4, memoryMiB: 16384, onDemandPrice: 0.526, localNvmeGiB: 125 });
    expect(get('g4dn.xlarge').gpu).toEqual({ count: 1, name: 't4', manufacturer: 'nvidia', memoryMiB: 16384 });
    expect(get('p5.48xlarge')).toMatchObject({ vcpu: 192, memoryMiB: 2048 * 1024, onDemandPrice: 55.04, maxEnis: 2 });
    expect(get('p5.48xlarge').gpu).toMatchObject({ count: 8, name: 'h100' });
    expect(get('inf2.xlarge')).toMatchObject({ vcpu: 4, memoryMiB: 16384, onDemandPrice: 0.7582 });
    expect(get('inf2.xlarge').accelerator).toEqual({ count: 1, name: 'inferentia2', manufacturer: 'aws', cores: 2 });
    expect(get('m5.metal')).toMatchObject({ bareMetal: true, hypervisor: '', vcpu: 96, branchEnis: 120 });
  });

  it("agrees with the DescribeInstanceTypes records in Karpenter's test fixtures", () => {
    expect(get('g4dn.8xlarge')).toMatchObject({
      maxEnis: 4,
      ipv4PerEni: 15,
      ebsBandwidthMbps: 9500,
      efa: 1,
      localNvmeGiB: 900,
      cpuClockMhz: 2500,
    });
    expect(get('g4ad.16xlarge')).toMatchObject({
      maxEnis: 8,
      ipv4PerEni: 30,
      ebsBandwidthMbps: 6300,
      localNvmeGiB: 2400,
    });
    expect(get('g4ad.16xlarge').gpu).toEqual({
      count: 4,
      name: 'radeon-pro-v520',
      manufacturer: 'amd',
      memoryMiB: 8192,
    });
    expect(get('m6idn.32xlarge')).toMatchObject({
      maxEnis: 8,
      ipv4PerEni: 50,
      efa: 2,
      localNvmeGiB: 7600,
      ebsBandwidthMbps: 100000,
    });
    expect(get('t3.large')).toMatchObject({ maxEnis: 3, ipv4PerEni: 12, ebsBandwidthMbps: 2780 });
    expect(get('t4g.small')).toMatchObject({ maxEnis: 3, ipv4PerEni: 4, ebsBandwidthMbps: 2085, memoryMiB: 2048 });
    expect(get('c6g.large')).toMatchObject({
      memoryMiB: 4096,
      maxEnis: 3,
      ipv4PerEni: 10,
      ebsBandwidthMbps: 4750,
      cpuClockMhz: 2500,
    });
    expect(get('inf2.24xlarge')).toMatchObject({
      maxEnis: 15,
      ipv4PerEni: 50,
      ebsBandwidthMbps: 30000,
      cpuClockMhz: 3600,
    });
    expect(get('inf2.24xlarge').accelerator).toEqual({ count: 6, name: 'inferentia2', manufacturer: 'aws', cores: 12 });
    expect(get('trn1.2xlarge')).toMatchObject({
      vcpu: 8,
      memoryMiB: 32768,
      localNvmeGiB: 474,
      ebsBandwidthMbps: 20000,
    });
  });

  it('prices spot below on-demand, only in zones that offer the type', () => {
    const wrong: string[] = [];
    for (const t of catalog.types) {
      for (const [zone, price] of Object.entries(t.spotPrice)) {
        if (!t.zones.includes(zone) || !(price > 0 && price < t.onDemandPrice)) wrong.push(`${t.name}@${zone}`);
      }
    }
    expect(wrong).toEqual([]);
    // The constrained zone offers older x86 types only, and some types lack spot in some zones.
    expect(get('m5.large').zones).toContain('us-east-1e');
    expect(get('m7g.large').zones).not.toContain('us-east-1e');
    expect(catalog.types.some((t) => Object.keys(t.spotPrice).length < t.zones.length)).toBe(true);
    expect(catalog.types.some((t) => t.zones.length < 5)).toBe(true);
  });

  it('is exactly what the committed generator produces', () => {
    const file = readFileSync(new URL('./data/us-east-1.json', import.meta.url), 'utf8');
    expect(serializeCatalog(buildCatalog())).toBe(file);
  });
});
