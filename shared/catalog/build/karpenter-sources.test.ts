// The readers of Karpenter's generated files: what they take from each, and errors that name the file.
import { describe, expect, it } from 'vitest';
import { parsePrices, parseReference, parseVpcLimits } from './karpenter-sources';

const LIMITS = `var Limits = map[string]*VPCLimits{
\t"c6in.32xlarge": {
\t\tInterface:               16,
\t\tIPv4PerInterface:        50,
\t\tIsTrunkingCompatible:    true,
\t\tBranchInterface:         106,
\t\tDefaultNetworkCardIndex: 0,
\t\tNetworkCards: []NetworkCard{
\t\t\t{
\t\t\t\tMaximumNetworkInterfaces: 8,
\t\t\t\tNetworkCardIndex:         0,
\t\t\t},
\t\t\t{
\t\t\t\tMaximumNetworkInterfaces: 8,
\t\t\t\tNetworkCardIndex:         1,
\t\t\t},
\t\t},
\t\tHypervisor:  "nitro",
\t\tIsBareMetal: false,
\t},
}`;

describe("Karpenter's generated files", () => {
  it('counts the interfaces of the default network card only, as the VPC CNI does', () => {
    expect(parseVpcLimits(LIMITS, 'vpclimits.go').get('c6in.32xlarge')).toEqual({
      name: 'c6in.32xlarge',
      interfaces: 8,
      ipv4PerInterface: 50,
      branchInterfaces: 106,
      hypervisor: 'nitro',
      bareMetal: false,
    });
  });

  it('reads labels and resources per type, keeping an empty value', () => {
    const md = [
      '### `c5.metal`',
      '#### Labels',
      ' | Label | Value |',
      ' |--|--|',
      ' |karpenter.k8s.aws/instance-hypervisor||',
      ' |kubernetes.io/os|linux|',
      '#### Resources',
      ' | Resource | Quantity |',
      ' |cpu|95690m|',
    ].join('\n');
    expect(parseReference(md, 'instance-types.md')).toEqual([
      { name: 'c5.metal', labels: { 'karpenter.k8s.aws/instance-hypervisor': '' }, resources: { cpu: '95690m' } },
    ]);
  });

  it('reads prices per region with the table date', () => {
    const go =
      '// generated at 2026-07-20T13:44:30Z for us-east-1\n\t"us-east-1": {\n\t\t"a1.large": 0.051000, "c5.large": 0.085,\n';
    const { generatedAt, prices } = parsePrices(go, 'pricing.go');
    expect(generatedAt).toBe('2026-07-20T13:44:30Z');
    expect(Object.fromEntries(prices.get('us-east-1') ?? [])).toEqual({ 'a1.large': 0.051, 'c5.large': 0.085 });
  });

  it('names the file when it holds nothing it can read', () => {
    expect(() => parseReference('# nothing', 'instance-types.md')).toThrow(
      'instance-types.md: no instance types found',
    );
    expect(() => parsePrices('no date', 'pricing.go')).toThrow('pricing.go: no "generated at" line');
    expect(() => parseVpcLimits('', 'vpclimits.go')).toThrow('vpclimits.go: no VPC limits found');
  });
});
