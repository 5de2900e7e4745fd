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

/** What any term's filters find, once per id (two terms matching one resource give it once), sorted by id. A term
 * with no filters matches nothing. */
async function discoverByTerms<T extends { id: string }>(
  terms: SelectorTerm[],
  filtersOf: (term: SelectorTerm) => Filter[],
  find: (filters: Filter[]) => AsyncIterable<T>,
): Promise<T[]> {
  const found = new Map<string, T>();
  for (const term of terms) {
    const filters = filtersOf(term);
    if (filters.length === 0) continue;
    for await (const item of find(filters)) found.set(item.id, item);
  }
  return [...found.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** Every subnet any term matches. */
export function discoverSubnets(ec2: EC2Client, terms: SelectorTerm[]): Promise<ResolvedSubnet[]> {
  return discoverByTerms(terms, subnetFilters, async function* (filters) {
    for await (const page of paginateDescribeSubnets({ client: ec2 }, { Filters: filters })) {
      for (const s of page.Subnets ?? []) {
        if (!s.SubnetId || !s.AvailabilityZone) continue;
        const subnet: ResolvedSubnet = {
          id: s.SubnetId,
          zone: s.AvailabilityZone,
          availableIps: s.AvailableIpAddressCount ?? 0,
        };
        if (s.AvailabilityZoneId) subnet.zoneId = s.AvailabilityZoneId;
        yield subnet;
      }
    }
  });
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

export function discoverSecurityGroups(ec2: EC2Client, terms: SelectorTerm[]): Promise<ResolvedSecurityGroup[]> {
  return discoverByTerms(terms, securityGroupFilters, async function* (filters) {
    for await (const page of paginateDescribeSecurityGroups({ client: ec2 }, { Filters: filters })) {
      for (const g of page.SecurityGroups ?? []) {
        if (!g.GroupId) continue;
        yield g.GroupName ? { id: g.GroupId, name: g.GroupName } : { id: g.GroupId };
      }
    }
  });
}
