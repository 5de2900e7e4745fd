// The simulated AWS account behind SimCloud: the AMIs published for each alias family and Kubernetes version, the
// subnets and security groups with their tags, and the cluster's Kubernetes version. It resolves an EC2NodeClass as
// the AWS adapter does (an alias follows SSM's newest image for the control plane's version; selector terms pick
// tagged resources), so a scenario step that changes the account drifts nodes the way AWS does (docs/scenarios.md,
// Steps that change the cloud). Subnets and groups no step has tagged are the account's defaults, one subnet per zone
// (`subnet-<zone>`) and one group (`sg-sim`): every subnet term selects a default subnet, while the default group is
// selected as AWS would select it, by its id or name, or by any tags (it stands for the group the cluster tagged).
import type { AmiSelectorTerm, EC2NodeClass, SelectorTerm } from '../api/karpenter';
import { parseAlias } from '../api/validate-nodeclass';
import type { ResolvedAmi } from '../catalog/images';
import type { Arch } from '../catalog/types';

export const DEFAULT_KUBERNETES_VERSION = '1.31';
export const DEFAULT_SECURITY_GROUP = 'sg-sim';
export const defaultSubnet = (zone: string): string => `subnet-${zone}`;

export interface PublishedAmi {
  id: string;
  family: string;
  /** The release, as an alias pins it: `v20260110` in `al2023@v20260110`. */
  version: string;
  kubernetesVersion: string;
  /** The architecture the image is for; amd64 unless given. */
  arch: Arch;
}

const ARCHES: readonly Arch[] = ['amd64', 'arm64'];

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

  /** Publishes an image for an alias family at `version` (for the current Kubernetes version and amd64 unless
   * given): the newest published image of an architecture is what `family@latest` resolves to for it. */
  publishAmi(ami: Omit<PublishedAmi, 'id' | 'kubernetesVersion' | 'arch'> & Partial<PublishedAmi>): PublishedAmi {
    const kubernetesVersion = ami.kubernetesVersion ?? this.kubernetesVersion;
    const arch = ami.arch ?? 'amd64';
    const published: PublishedAmi = {
      ...ami,
      kubernetesVersion,
      arch,
      id: ami.id ?? defaultImage(ami.family, ami.version, kubernetesVersion, arch),
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

  /** The image an EC2NodeClass's alias term resolves to now for `arch`; undefined for other terms (ids, tags,
   * names). */
  aliasImage(nodeClass: EC2NodeClass, arch: Arch = 'amd64'): string | undefined {
    const term = (nodeClass.spec.amiSelectorTerms ?? []).find((t: AmiSelectorTerm) => t.alias);
    const alias = term?.alias ? parseAlias(term.alias) : undefined;
    if (!alias) return undefined;
    const k8s = this.kubernetesVersion;
    const family = alias.family.toLowerCase();
    const mine = this.amis.filter((a) => a.family === family && a.kubernetesVersion === k8s && a.arch === arch);
    const found = alias.version === 'latest' ? mine.at(-1) : mine.findLast((a) => a.version === alias.version);
    return found?.id ?? defaultImage(family, alias.version, k8s, arch);
  }

  /**
   * The images an EC2NodeClass resolves to now, as the AWS adapter's discovery returns them: an alias gives one image
   * per architecture; id terms give their images (a published one for its architecture, any other for both, since
   * the account does not know it); other terms stand for one stable image serving both architectures.
   */
  imagesFor(nodeClass: EC2NodeClass): ResolvedAmi[] {
    const terms = nodeClass.spec.amiSelectorTerms ?? [];
    if (terms.some((t) => t.alias)) {
      return ARCHES.map((arch) => ({ id: this.aliasImage(nodeClass, arch) as string, arch }));
    }
    const ids = terms.flatMap((t) => (t.id ? [t.id] : []));
    if (ids.length === 0) {
      const id = `ami-${stableHex(JSON.stringify(terms), 17)}`;
      return ARCHES.map((arch) => ({ id, arch }));
    }
    // Per architecture the first term's image: the simulator's images carry no creation date to pick the newest.
    return ARCHES.flatMap((arch) => {
      const id = ids.find((i) => this.archesOf(i).includes(arch));
      return id ? [{ id, arch }] : [];
    });
  }

  private archesOf(imageId: string): readonly Arch[] {
    const published = this.amis.filter((a) => a.id === imageId).map((a) => a.arch);
    return published.length > 0 ? published : ARCHES;
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
    return !s || terms.some((t) => termSelects(t, { id, name: s.tags.Name, tags: s.tags }));
  }

  /** A group's name (EC2's group-name, which name terms match) is its Name tag, else its id. */
  private groupSelected(id: string, terms: SelectorTerm[]): boolean {
    const tags = this.groups.get(id);
    if (!tags && id !== DEFAULT_SECURITY_GROUP) return false;
    return terms.some((t) => termSelects(t, { id, name: tags?.Name ?? id, tags }));
  }
}

/** A resource as selector terms see it; `tags` undefined for an untagged default, which any tags match. */
interface Selectable {
  id: string;
  name: string | undefined;
  tags: Record<string, string> | undefined;
}

/** As the AWS adapter's filters: a term's fields all have to match (id, name, every tag it names, values with EC2's
 * `*` and `?` wildcards); a term with none selects nothing. */
function termSelects(term: SelectorTerm, r: Selectable): boolean {
  const wanted = Object.entries(term.tags ?? {});
  if (!term.id && !term.name && wanted.length === 0) return false;
  if (term.id && term.id !== r.id) return false;
  if (term.name && term.name !== r.name) return false;
  const { tags } = r;
  return !tags || wanted.every(([k, v]) => tags[k] !== undefined && wildcard(v).test(tags[k]));
}

const wildcard = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

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

/** The stable id of an alias release nothing was published for; amd64 ids predate architectures and keep their form. */
function defaultImage(family: string, version: string, kubernetesVersion: string, arch: Arch): string {
  const suffix = arch === 'amd64' ? '' : `/${arch}`;
  return `ami-${stableHex(`${family}@${version}/${kubernetesVersion}${suffix}`, 17)}`;
}
