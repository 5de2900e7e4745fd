// Subnet and security-group discovery from EC2NodeClass selector terms. Terms are ORed (one Describe call each);
// the fields inside a term are ANDed (EC2 filters on one call). Tag values may use EC2's `*` wildcards; a value of
// exactly `*` means "the tag exists with any value".
import {
  type EC2Client,
  type Filter,
  paginateDescribeSecurityGroups,
  paginateDescribeSubnets,
} from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../api/karpenter';

export interface ResolvedSubnet {
  id: string;
  zone: string;
  zoneId?: string;
  availableIps: number;
}

export interface ResolvedSecurityGroup {
  id: string;
  name?: string;
}

function tagFilters(tags: Record<string, string> | undefined): Filter[] {
  return Object.entries(tags ?? {}).map(([k, v]) =>
    v === '*' ? { Name: 'tag-key', Values: [k] } : { Name: `tag:${k}`, Values: [v] },
  );
}

export function subnetFilters(term: SelectorTerm): Filter[] {
  const f = tagFilters(term.tags);
  if (term.id) f.push({ Name: 'subnet-id', Values: [term.id] });
  // Subnets have no name of their own; the console's "Name" is the Name tag.
  if (term.name) f.push({ Name: 'tag:Name', Values: [term.name] });
  return f;
}

export function securityGroupFilters(term: SelectorTerm): Filter[] {
  const f = tagFilters(term.tags);
  if (term.id) f.push({ Name: 'group-id', Values: [term.id] });
  if (term.name) f.push({ Name: 'group-name', Values: [term.name] });
  return f;
}

/** Every subnet any term matches, keyed by id (a subnet matched by two terms appears once). */
export async function discoverSubnets(ec2: EC2Client, terms: SelectorTerm[]): Promise<ResolvedSubnet[]> {
  const found = new Map<string, ResolvedSubnet>();
  for (const term of terms) {
    const filters = subnetFilters(term);
    if (filters.length === 0) continue;
    for await (const page of paginateDescribeSubnets({ client: ec2 }, { Filters: filters })) {
      for (const s of page.Subnets ?? []) {
        if (!s.SubnetId || !s.AvailabilityZone) continue;
        const subnet: ResolvedSubnet = {
          id: s.SubnetId,
          zone: s.AvailabilityZone,
          availableIps: s.AvailableIpAddressCount ?? 0,
        };
        if (s.AvailabilityZoneId) subnet.zoneId = s.AvailabilityZoneId;
        found.set(s.SubnetId, subnet);
      }
    }
  }
  return [...found.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** Per zone, the subnet with the most free IPs (ties go to the lower id, so the choice is stable). */
export function bestSubnetPerZone(subnets: ResolvedSubnet[]): Map<string, ResolvedSubnet> {
  const best = new Map<string, ResolvedSubnet>();
  for (const s of subnets) {
    const cur = best.get(s.zone);
    if (!cur || s.availableIps > cur.availableIps || (s.availableIps === cur.availableIps && s.id < cur.id)) {
      best.set(s.zone, s);
    }
  }
  return best;
}

export async function discoverSecurityGroups(ec2: EC2Client, terms: SelectorTerm[]): Promise<ResolvedSecurityGroup[]> {
  const found = new Map<string, ResolvedSecurityGroup>();
  for (const term of terms) {
    const filters = securityGroupFilters(term);
    if (filters.length === 0) continue;
    for await (const page of paginateDescribeSecurityGroups({ client: ec2 }, { Filters: filters })) {
      for (const g of page.SecurityGroups ?? []) {
        if (!g.GroupId) continue;
        found.set(g.GroupId, g.GroupName ? { id: g.GroupId, name: g.GroupName } : { id: g.GroupId });
      }
    }
  }
  return [...found.values()].sort((a, b) => a.id.localeCompare(b.id));
}
