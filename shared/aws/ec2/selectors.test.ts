import { describe, expect, it } from 'vitest';
import { bestSubnetPerZone, securityGroupFilters, subnetFilters } from './selectors';

describe('selector terms', () => {
  it('turns one term into ANDed EC2 filters', () => {
    expect(subnetFilters({ tags: { env: 'prod-*', tier: '*' }, id: 'subnet-1', name: 'private' })).toEqual([
      { Name: 'tag:env', Values: ['prod-*'] },
      { Name: 'tag-key', Values: ['tier'] },
      { Name: 'subnet-id', Values: ['subnet-1'] },
      { Name: 'tag:Name', Values: ['private'] },
    ]);
    expect(securityGroupFilters({ id: 'sg-1', name: 'nodes' })).toEqual([
      { Name: 'group-id', Values: ['sg-1'] },
      { Name: 'group-name', Values: ['nodes'] },
    ]);
  });

  it('picks the subnet with most free IPs per zone, ties to the lower id', () => {
    const best = bestSubnetPerZone([
      { id: 'subnet-b', zone: 'z1', availableIps: 10 },
      { id: 'subnet-a', zone: 'z1', availableIps: 10 },
      { id: 'subnet-c', zone: 'z2', availableIps: 5 },
      { id: 'subnet-d', zone: 'z2', availableIps: 50 },
    ]);
    expect(best.get('z1')?.id).toBe('subnet-a');
    expect(best.get('z2')?.id).toBe('subnet-d');
  });
});
