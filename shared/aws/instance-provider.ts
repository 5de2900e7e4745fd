// The InstanceProvider port on EC2: this cluster's instances (found by tag), terminating them, and deleting launch
// templates nothing launches from any more. The termination and GC functions are wired with this class alone, so
// their bundles leave out what only a launch needs: SSM and IAM for EC2NodeClass resolution, user data, CreateFleet.
import type { EC2Client } from '@aws-sdk/client-ec2';
import { loadCatalog } from '../catalog';
import type { Catalog } from '../catalog/types';
import {
  type Clock,
  type CloudInstance,
  type InstanceProvider,
  type LaunchTemplateCollector,
  systemClock,
} from '../ports';
import { ec2Client } from './clients';
import { getInstance, listClusterInstances, type PriceOf, terminateInstance } from './ec2/instances';
import { clusterLaunchTemplates, deleteUnusedLaunchTemplates, LaunchTemplates } from './ec2/launch-template';
import { TagLaunchTemplateId } from './ec2/tags';

/** Karpless templates this old or older, unused by any live instance or recent launch here, are deleted by GC. */
export const STALE_LAUNCH_TEMPLATE_AGE_MS = 30 * 60_000;

export interface AwsInstanceProviderOptions {
  cluster: { name: string; region: string };
  /** The catalog pricing instances that `priceOf` does not; read from `catalogPath`, else the embedded snapshot, on
   * first use (not at start-up). */
  catalog?: Catalog;
  catalogPath?: string;
  ec2?: EC2Client;
  clock?: Clock;
  priceOf?: PriceOf;
  /** How long a launch template is safe from cleanup after its creation and after its last use here; 30 min. */
  staleLaunchTemplateAgeMs?: number;
}

export class AwsInstanceProvider implements InstanceProvider, LaunchTemplateCollector {
  protected readonly ec2: EC2Client;
  protected readonly clock: Clock;
  /** Launch templates this container created or used: the launching subclass records them, cleanup spares them. */
  protected readonly templates: LaunchTemplates;

  constructor(private readonly base: AwsInstanceProviderOptions) {
    this.ec2 = base.ec2 ?? ec2Client({ region: base.cluster.region });
    this.clock = base.clock ?? systemClock;
    this.templates = new LaunchTemplates(this.ec2, () => this.clock.now());
  }

  async delete(instanceId: string): Promise<void> {
    await terminateInstance(this.ec2, instanceId);
  }

  get(instanceId: string): Promise<CloudInstance | undefined> {
    return getInstance(this.ec2, instanceId, this.priceOf);
  }

  /**
   * This cluster's instances, each launched from one of the cluster's Karpless launch templates marked with that
   * proof. EC2 alone writes the `aws:` tag naming the template (no caller may set an `aws:` tag), and only Karpless
   * creates templates under its name prefix, so, unlike the cluster tag, the proof cannot be forged with
   * ec2:CreateTags (docs/aws.md ("Garbage collection")).
   */
  async list(): Promise<CloudInstance[]> {
    const cluster = this.base.cluster.name;
    const instances = await listClusterInstances(this.ec2, cluster, { priceOf: this.priceOf });
    if (!instances.some((i) => i.tags[TagLaunchTemplateId])) return instances;
    const ours = new Map<string, string>();
    for await (const t of clusterLaunchTemplates(this.ec2, cluster)) if (t.id) ours.set(t.id, t.name);
    for (const i of instances) {
      const template = ours.get(i.tags[TagLaunchTemplateId] ?? '');
      if (template) i.launchProof = `launch template ${template}`;
    }
    return instances;
  }

  /**
   * Deletes this cluster's launch templates nothing may still launch from. A template is kept while it is younger
   * than the stale age (a launch in another Lambda may have just created or found it), while this container used it
   * within that age, and while a live instance of the cluster was launched from it (its configuration is current).
   * A launch that still races a deletion re-creates the template and retries (see AwsCloudProvider.create).
   */
  async deleteStaleLaunchTemplates(): Promise<number> {
    const age = this.base.staleLaunchTemplateAgeMs ?? STALE_LAUNCH_TEMPLATE_AGE_MS;
    const cutoff = this.clock.now() - age;
    const instances = await this.list();
    const inUse = new Set(instances.flatMap((i) => i.tags[TagLaunchTemplateId] ?? []));
    const recent = this.templates.usedSince(cutoff);
    const deleted = await deleteUnusedLaunchTemplates(
      this.ec2,
      this.base.cluster.name,
      (t) =>
        recent.has(t.name) ||
        (t.id !== undefined && inUse.has(t.id)) ||
        // Without a creation time its age is unknown: keep it.
        !t.createdAt ||
        t.createdAt.getTime() > cutoff,
    );
    return deleted.length;
  }

  /** The catalog as configured, loaded once. */
  protected catalog(): Catalog {
    this.loaded ??= this.base.catalog ?? loadCatalog(this.base.catalogPath);
    return this.loaded;
  }
  private loaded?: Catalog;

  /** The catalog that prices instances; the launching subclass lays live prices over it. */
  protected pricingCatalog(): Catalog | undefined {
    return this.catalog();
  }

  /** Price of a running instance: the caller's lookup, else the pricing catalog. */
  protected readonly priceOf: PriceOf = (type, zone, capacityType, os = 'linux') => {
    if (this.base.priceOf) return this.base.priceOf(type, zone, capacityType, os);
    const catalog = this.pricingCatalog();
    if (!catalog) return undefined;
    const info = this.typeInfo(catalog, type);
    const prices = os === 'windows' ? info?.windows : info;
    return capacityType === 'spot' ? prices?.spotPrice[zone] : prices?.onDemandPrice;
  };

  /** An instance type of `catalog` by name, through an index built once per catalog object. */
  protected typeInfo(catalog: Catalog, type: string): Catalog['types'][number] | undefined {
    let byName = this.typeIndex.get(catalog);
    if (!byName) {
      byName = new Map(catalog.types.map((t) => [t.name, t]));
      this.typeIndex.set(catalog, byName);
    }
    return byName.get(type);
  }
  private readonly typeIndex = new WeakMap<Catalog, Map<string, Catalog['types'][number]>>();
}
