// AMI discovery from amiSelectorTerms. Aliases resolve through AWS's public SSM parameters for the cluster's
// Kubernetes version and each architecture; id/name/owner/tags go through DescribeImages. Per architecture the
// newest image wins.
import { type EC2Client, type Filter, type Image, paginateDescribeImages } from '@aws-sdk/client-ec2';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { AmiSelectorTerm, EC2NodeClassSpec } from '../../api/karpenter';
import { isWindowsFamily, WINDOWS_FAMILIES } from '../../api/windows';
import type { ResolvedAmi, Variant } from '../../catalog/images';
import type { Arch } from '../../catalog/types';

export type AmiFamily = NonNullable<EC2NodeClassSpec['amiFamily']>;

// Which image a type boots is the engine's (shared/catalog/images.ts): AMI drift in the simulator asks it too.
export { amiFor, type ResolvedAmi, type Variant, variantFor } from '../../catalog/images';

export interface Alias {
  family: 'al2023' | 'al2' | 'bottlerocket' | 'windows2019' | 'windows2022' | 'windows2025';
  /** "latest" or a pinned release such as "v20250101" (AL2/AL2023) or "v1.26.2" (Bottlerocket); Windows: latest. */
  version: string;
}

const ALIAS_FAMILIES: Record<Alias['family'], AmiFamily> = {
  al2023: 'AL2023',
  al2: 'AL2',
  bottlerocket: 'Bottlerocket',
  windows2019: 'Windows2019',
  windows2022: 'Windows2022',
  windows2025: 'Windows2025',
};

const windowsOf = (alias: Alias) => {
  const family = ALIAS_FAMILIES[alias.family];
  return isWindowsFamily(family) ? WINDOWS_FAMILIES[family] : undefined;
};

export function parseAlias(alias: string): Alias {
  const [family, version, ...rest] = alias.split('@');
  if (!family || !version || rest.length > 0 || !(family in ALIAS_FAMILIES)) {
    throw new Error(
      `amiSelectorTerms alias "${alias}": expected <family>@<version> with family one of ${Object.keys(ALIAS_FAMILIES).join(', ')}`,
    );
  }
  if (family.startsWith('windows') && version !== 'latest') {
    throw new Error(`amiSelectorTerms alias "${alias}": Windows families support only the version latest`);
  }
  if (version !== 'latest' && !/^v\d[\w.-]*$/.test(version)) {
    throw new Error(`amiSelectorTerms alias "${alias}": version must be "latest" or start with "v" (e.g. v20250101)`);
  }
  return { family: family as Alias['family'], version };
}

/** The AMI family a node class boots: amiFamily if set, else the alias's family, else AL2023 (Karpenter's default). */
export function amiFamilyOf(spec: EC2NodeClassSpec): AmiFamily {
  if (spec.amiFamily) return spec.amiFamily;
  const alias = spec.amiSelectorTerms.find((t) => t.alias)?.alias;
  return alias ? ALIAS_FAMILIES[parseAlias(alias).family] : 'AL2023';
}

const SSM_ARCH: Record<Arch, string> = { amd64: 'x86_64', arm64: 'arm64' };

/**
 * The public SSM parameter holding the image id of `alias` for one Kubernetes version, architecture and variant, or
 * undefined where AWS publishes no such image.
 */
export function aliasParameter(
  alias: Alias,
  k8sVersion: string,
  arch: Arch,
  variant: Variant = 'standard',
): string | undefined {
  const a = SSM_ARCH[arch];
  const latest = alias.version === 'latest';
  const windows = windowsOf(alias);
  if (windows) {
    // EKS publishes one Windows Server Core image per version and Kubernetes release, x86 only; it serves every
    // x86 type (the alias resolves as a generic image, not a variant).
    if (arch !== 'amd64' || variant !== 'standard') return undefined;
    return `/aws/service/ami-windows-latest/Windows_Server-${windows.version}-English-Core-EKS_Optimized-${k8sVersion}/image_id`;
  }
  switch (alias.family) {
    case 'al2023': {
      if (variant === 'neuron' && arch === 'arm64') return undefined;
      const name = latest ? 'recommended' : `amazon-eks-node-al2023-${a}-${variant}-${k8sVersion}-${alias.version}`;
      return `/aws/service/eks/optimized-ami/${k8sVersion}/amazon-linux-2023/${a}/${variant}/${name}/image_id`;
    }
    case 'al2': {
      // AL2 has one accelerated image (x86_64 only) with both the NVIDIA and the Neuron drivers.
      if (variant !== 'standard' && arch === 'arm64') return undefined;
      const suffix = variant !== 'standard' ? '-gpu' : arch === 'arm64' ? '-arm64' : '';
      const name = latest ? 'recommended' : `amazon-eks${suffix}-node-${k8sVersion}-${alias.version}`;
      return `/aws/service/eks/optimized-ami/${k8sVersion}/amazon-linux-2${suffix}/${name}/image_id`;
    }
    case 'bottlerocket': {
      if (variant === 'neuron') return undefined;
      const version = latest ? 'latest' : alias.version.replace(/^v/, '');
      const flavour = variant === 'nvidia' ? '-nvidia' : '';
      return `/aws/service/bottlerocket/aws-k8s-${k8sVersion}${flavour}/${a}/${version}/image_id`;
    }
  }
}

const VARIANTS: readonly Variant[] = ['standard', 'nvidia', 'neuron'];

async function aliasImageIds(ssm: SSMClient, alias: Alias, k8sVersion: string): Promise<Map<string, Variant>> {
  const ids = new Map<string, Variant>();
  for (const arch of ['amd64', 'arm64'] as const) {
    for (const variant of VARIANTS) {
      const name = aliasParameter(alias, k8sVersion, arch, variant);
      if (!name) continue;
      try {
        const out = await ssm.send(new GetParameterCommand({ Name: name }));
        // The first variant to claim an image keeps it (AL2's one GPU image serves nvidia and neuron alike).
        if (out.Parameter?.Value && !ids.has(out.Parameter.Value)) ids.set(out.Parameter.Value, variant);
      } catch (err) {
        // A family without an image for one architecture or variant (or a pinned version that never existed) is not
        // fatal unless nothing resolves at all.
        if ((err as { name?: string }).name !== 'ParameterNotFound') throw err;
      }
    }
  }
  return ids;
}

interface ImageQuery {
  filters: Filter[];
  owners?: string[];
  variants?: Map<string, Variant>;
}

export function imageQuery(term: AmiSelectorTerm): ImageQuery {
  const filters: Filter[] = [];
  if (term.id) filters.push({ Name: 'image-id', Values: [term.id] });
  if (term.name) filters.push({ Name: 'name', Values: [term.name] });
  for (const [k, v] of Object.entries(term.tags ?? {})) {
    filters.push(v === '*' ? { Name: 'tag-key', Values: [k] } : { Name: `tag:${k}`, Values: [v] });
  }
  if (term.owner) return { filters, owners: [term.owner] };
  // Karpenter's default: a search by name or tags without an owner looks at your own and Amazon's images only,
  // so a public look-alike image can never be picked up.
  if (!term.id) return { filters, owners: ['self', 'amazon'] };
  return { filters };
}

const archOf = (image: Image): Arch | undefined =>
  image.Architecture === 'x86_64' ? 'amd64' : image.Architecture === 'arm64' ? 'arm64' : undefined;

async function describe(ec2: EC2Client, q: ImageQuery): Promise<ResolvedAmi[]> {
  const out: ResolvedAmi[] = [];
  const input = {
    Filters: [...q.filters, { Name: 'state', Values: ['available'] }],
    ...(q.owners ? { Owners: q.owners } : {}),
  };
  for await (const page of paginateDescribeImages({ client: ec2 }, input)) {
    for (const image of page.Images ?? []) {
      const arch = archOf(image);
      if (!image.ImageId || !arch) continue;
      const ami: ResolvedAmi = { id: image.ImageId, arch };
      if (image.Name) ami.name = image.Name;
      if (image.CreationDate) ami.creationDate = image.CreationDate;
      const variant = q.variants?.get(image.ImageId);
      if (variant) ami.variant = variant;
      out.push(ami);
    }
  }
  return out;
}

/** Windows Server 2025 images exist from Kubernetes 1.35 on; Karpenter refuses the alias on older clusters. */
function requireWindowsKubernetes(text: string, alias: Alias, k8sVersion: string): void {
  const windows = windowsOf(alias);
  const minor = Number(k8sVersion.split('.')[1]);
  if (windows && 'minKubernetesMinor' in windows && minor < windows.minKubernetesMinor) {
    throw new Error(
      `amiSelectorTerms alias "${text}": Windows Server ${windows.version} requires EKS version 1.${windows.minKubernetesMinor} or higher, current version: ${k8sVersion}`,
    );
  }
}

/** All images the terms select, then the newest per architecture (newest first, ties by id for stability). */
export async function discoverAmis(
  ec2: EC2Client,
  ssm: SSMClient,
  terms: AmiSelectorTerm[],
  k8sVersion: string,
): Promise<ResolvedAmi[]> {
  const all = new Map<string, ResolvedAmi>();
  for (const term of terms) {
    let query: ImageQuery;
    if (term.alias) {
      const alias = parseAlias(term.alias);
      requireWindowsKubernetes(term.alias, alias, k8sVersion);
      const ids = await aliasImageIds(ssm, alias, k8sVersion);
      if (ids.size === 0) continue;
      const filters = [{ Name: 'image-id', Values: [...ids.keys()] }];
      query = windowsOf(alias) ? { filters } : { filters, variants: ids };
    } else if (term.ssmParameter) {
      const out = await ssm.send(new GetParameterCommand({ Name: term.ssmParameter }));
      if (!out.Parameter?.Value) continue;
      query = { filters: [{ Name: 'image-id', Values: [out.Parameter.Value] }] };
    } else {
      query = imageQuery(term);
      if (query.filters.length === 0 && !query.owners) continue;
    }
    for (const ami of await describe(ec2, query)) all.set(ami.id, ami);
  }
  return newestPerArchAndVariant([...all.values()]);
}

/** The newest image per (architecture, variant), newest first within ties broken by id for stability. */
export function newestPerArchAndVariant(images: ResolvedAmi[]): ResolvedAmi[] {
  const best = new Map<string, ResolvedAmi>();
  for (const img of images) {
    const key = `${img.arch}/${img.variant ?? ''}`;
    const cur = best.get(key);
    const newer = (img.creationDate ?? '') > (cur?.creationDate ?? '');
    const tie = (img.creationDate ?? '') === (cur?.creationDate ?? '') && img.id < (cur?.id ?? '');
    if (!cur || newer || tie) best.set(key, img);
  }
  return [...best.values()].sort((a, b) =>
    a.arch === b.arch ? (a.variant ?? '').localeCompare(b.variant ?? '') : a.arch.localeCompare(b.arch),
  );
}
