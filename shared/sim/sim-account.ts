// The simulated AWS account behind SimCloud: the AMIs published for each alias family and Kubernetes version, the
// subnets and security groups with their tags, and the cluster's Kubernetes version. It resolves an EC2NodeClass as
// the AWS adapter does (an alias follows SSM's newest image for the control plane's version; selector terms pick
// tagged resources), so a scenario step that changes the account drifts nodes the way AWS does (docs/scenarios.md,
// Changing the cloud). Subnets and security groups no step has tagged are the account's defaults, one subnet per zone
// (`subnet-<zone>`) and one group (`sg-sim`), and every selector term selects them.
import type { AmiSelectorTerm, EC2NodeClass, SelectorTerm } from '../api/karpenter';
import { parseAlias } from '../api/validate-nodeclass';

export const DEFAULT_KUBERNETES_VERSION = '1.31';
export const DEFAULT_SECURITY_GROUP = 'sg-sim';
export const defaultSubnet = (zone: string): string => `subnet-${zone}`;

export interface PublishedAmi {
  id: string;
  family: string;
  /** The release, as an alias pins it: `v20260110` in `al2023@v20260110`. */
  version: string;
  kubernetesVersion: string;
}

interface TaggedSubnet {
  zone: string;
  tags: Record<string, string>;
}

/** What the instance runs on, as EC2 reports it. */
export interface PlacedInstance {
  imageId?: string;
  subnetId?: string;
  securityGroupIds?: string[];
}

export class SimAccount {
  kubernetesVersion = DEFAULT_KUBERNETES_VERSION;
  private readonly amis: PublishedAmi[] = [];
  private readonly subnets = new Map<string, TaggedSubnet>();
  private readonly groups = new Map<string, Record<string, string>>();

  /** Publishes an image for an alias family at `version` (for the current Kubernetes version unless given): the
   * newest published image is what `family@latest` resolves to. */
  publishAmi(ami: Omit<PublishedAmi, 'id' | 'kubernetesVersion'> & Partial<PublishedAmi>): PublishedAmi {
    const kubernetesVersion = ami.kubernetesVersion ?? this.kubernetesVersion;
    const published: PublishedAmi = {
      ...ami,
      kubernetesVersion,
      id: ami.id ?? `ami-${stableHex(`${ami.family}@${ami.version}/${kubernetesVersion}`, 17)}`,
    };
    this.amis.push(published);
    return published;
  }

  /** Gives a subnet (`zone` needed for one that is not a default `subnet-<zone>`) or a security group its complete
   * new set of tags; one that did not exist is created with them. */
  retag(kind: 'subnet' | 'securityGroup', id: string, tags: Record<string, string>, zone?: string): void {
    if (kind === 'securityGroup') {
      this.groups.set(id, { ...tags });
      return;
    }
    const at = zone ?? this.subnets.get(id)?.zone ?? /^subnet-([a-z]{2}-[a-z]+-\d[a-z])$/.exec(id)?.[1];
    if (!at) throw new Error(`subnet ${id} is not a default subnet-<zone>: give its zone`);
    this.subnets.set(id, { zone: at, tags: { ...tags } });
  }

  /** The image an EC2NodeClass's alias term resolves to now; undefined for other terms (ids, tags, names). */
  aliasImage(nodeClass: EC2NodeClass): string | undefined {
    const term = (nodeClass.spec.amiSelectorTerms ?? []).find((t: AmiSelectorTerm) => t.alias);
    const alias = term?.alias ? parseAlias(term.alias) : undefined;
    if (!alias) return undefined;
    const k8s = this.kubernetesVersion;
    const family = alias.family.toLowerCase();
    const mine = this.amis.filter((a) => a.family === family && a.kubernetesVersion === k8s);
    const found = alias.version === 'latest' ? mine.at(-1) : mine.findLast((a) => a.version === alias.version);
    return found?.id ?? `ami-${stableHex(`${family}@${alias.version}/${k8s}`, 17)}`;
  }

  /** The subnet a launch in `zone` uses: the zone's default while it is selected, else a tagged one that is;
   * undefined when the class selects no subnet there (the zone is then not offered, as in AWS). */
  subnetFor(nodeClass: EC2NodeClass, zone: string): string | undefined {
    const terms = nodeClass.spec.subnetSelectorTerms ?? [];
    const fallback = defaultSubnet(zone);
    if (this.subnetSelected(fallback, terms)) return fallback;
    for (const [id, s] of this.subnets) if (s.zone === zone && this.subnetSelected(id, terms)) return id;
    return undefined;
  }

  securityGroupsFor(nodeClass: EC2NodeClass): string[] {
    const terms = nodeClass.spec.securityGroupSelectorTerms ?? [];
    const ids = new Set([DEFAULT_SECURITY_GROUP, ...this.groups.keys()]);
    return [...ids].filter((id) => this.groupSelected(id, terms)).sort();
  }

  /** Subnet or security-group drift, as the AWS adapter finds it; none while the class selects no group at all
   * (broken discovery never replaces nodes). */
  networkDrift(instance: PlacedInstance, nodeClass: EC2NodeClass): string | undefined {
    const subnet = instance.subnetId;
    if (subnet && !this.subnetSelected(subnet, nodeClass.spec.subnetSelectorTerms ?? [])) {
      return `SubnetDrift: instance is in ${subnet}, which no subnetSelectorTerm selects any more`;
    }
    const want = this.securityGroupsFor(nodeClass);
    if (want.length === 0 || !instance.securityGroupIds) return undefined;
    const have = [...instance.securityGroupIds].sort();
    if (want.join(',') !== have.join(',')) {
      return `SecurityGroupDrift: instance has ${have.join(', ')}, EC2NodeClass resolves to ${want.join(', ')}`;
    }
    return undefined;
  }

  private subnetSelected(id: string, terms: SelectorTerm[]): boolean {
    const s = this.subnets.get(id);
    return !s || terms.some((t) => termSelects(t, id, s.tags));
  }

  private groupSelected(id: string, terms: SelectorTerm[]): boolean {
    const tags = this.groups.get(id);
    if (!tags) return id === DEFAULT_SECURITY_GROUP;
    return terms.some((t) => termSelects(t, id, tags));
  }
}

/** A selector term selects a resource by id, by Name tag, or when every tag it names matches ("*": any value). */
function termSelects(term: SelectorTerm, id: string, tags: Record<string, string>): boolean {
  if (term.id) return term.id === id;
  if (term.name) return tags.Name === term.name;
  const wanted = Object.entries(term.tags ?? {});
  return wanted.length > 0 && wanted.every(([k, v]) => k in tags && (v === '*' || tags[k] === v));
}

/** FNV-1a, stretched to `length` hex digits: stable ids derived from content. */
export function stableHex(text: string, length: number): string {
  let out = '';
  let salt = 0;
  while (out.length < length) {
    let h = 0x811c9dc5 ^ salt++;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    out += (h >>> 0).toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}
