// Resolves an EC2NodeClass against the account: subnets, security groups, AMIs and instance profile, with a Ready
// condition that says what is missing. Cached briefly per warm container, because the provisioner, the lifecycle
// and the disruption Lambdas all resolve the same classes every minute.
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { EC2NodeClass } from '../../api/karpenter';
import type { Clock } from '../../ports';
import { type AmiFamily, amiFamilyOf, discoverAmis, type ResolvedAmi } from './amis';
import { ensureInstanceProfile } from './instance-profile';
import {
  bestSubnetPerZone,
  discoverSecurityGroups,
  discoverSubnets,
  type ResolvedSecurityGroup,
  type ResolvedSubnet,
} from './selectors';

/** What the node's bootstrap needs to know about the cluster (from config or eks:DescribeCluster). */
export interface ClusterInfo {
  name: string;
  region: string;
  endpoint: string;
  /** Base64 PEM, as EKS returns it. */
  caData: string;
  /** The Service CIDR (nodeadm's `cidr`), e.g. 10.100.0.0/16. */
  serviceCidr: string;
  /** "1.31" */
  kubernetesVersion: string;
}

export interface ReadyCondition {
  type: 'Ready';
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface ResolvedNodeClass {
  name: string;
  amiFamily: AmiFamily;
  subnets: ResolvedSubnet[];
  /** Per zone, the subnet a launch there uses. */
  subnetByZone: Map<string, ResolvedSubnet>;
  securityGroups: ResolvedSecurityGroup[];
  amis: ResolvedAmi[];
  instanceProfile?: string;
  ready: ReadyCondition;
  resolvedAt: number;
}

export interface NodeClassResolverOptions {
  ec2: EC2Client;
  ssm: SSMClient;
  iam: IAMClient;
  cluster: ClusterInfo;
  clock: Clock;
  ttlMs?: number;
}

export const NODECLASS_CACHE_TTL_MS = 60_000;

export class NodeClassResolver {
  private readonly cache = new Map<string, { at: number; value: Promise<ResolvedNodeClass> }>();

  constructor(private readonly o: NodeClassResolverOptions) {}

  resolve(nodeClass: EC2NodeClass): Promise<ResolvedNodeClass> {
    const key = `${nodeClass.metadata.name}|${JSON.stringify(nodeClass.spec)}`;
    const now = this.o.clock.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < (this.o.ttlMs ?? NODECLASS_CACHE_TTL_MS)) return hit.value;
    const value = this.doResolve(nodeClass, now);
    this.cache.set(key, { at: now, value });
    // A failed resolve must not be cached: the next call tries again.
    value.catch(() => this.cache.delete(key));
    return value;
  }

  invalidate(): void {
    this.cache.clear();
  }

  private async doResolve(nodeClass: EC2NodeClass, now: number): Promise<ResolvedNodeClass> {
    const { spec } = nodeClass;
    const { ec2, ssm, iam, cluster } = this.o;
    const problems: string[] = [];
    let amiFamily: AmiFamily = 'AL2023';
    let amis: ResolvedAmi[] = [];
    try {
      amiFamily = amiFamilyOf(spec);
      amis = await discoverAmis(ec2, ssm, spec.amiSelectorTerms, cluster.kubernetesVersion);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('amiSelectorTerms')) throw err;
      problems.push(err.message);
    }
    const [subnets, securityGroups] = await Promise.all([
      discoverSubnets(ec2, spec.subnetSelectorTerms),
      discoverSecurityGroups(ec2, spec.securityGroupSelectorTerms),
    ]);
    let instanceProfile = spec.instanceProfile;
    if (!instanceProfile && spec.role) {
      instanceProfile = await ensureInstanceProfile(iam, {
        cluster: cluster.name,
        region: cluster.region,
        role: spec.role,
      });
    }
    if (subnets.length === 0)
      problems.push(`no subnet matches subnetSelectorTerms ${JSON.stringify(spec.subnetSelectorTerms)}`);
    if (securityGroups.length === 0) {
      problems.push(
        `no security group matches securityGroupSelectorTerms ${JSON.stringify(spec.securityGroupSelectorTerms)}`,
      );
    }
    if (amis.length === 0 && !problems.some((p) => p.startsWith('amiSelectorTerms'))) {
      problems.push(
        `no AMI matches amiSelectorTerms ${JSON.stringify(spec.amiSelectorTerms)} for Kubernetes ${cluster.kubernetesVersion}`,
      );
    }
    if (!instanceProfile) problems.push('neither role nor instanceProfile is set');
    const reason =
      problems.length === 0
        ? 'Resolved'
        : subnets.length === 0
          ? 'SubnetsNotFound'
          : securityGroups.length === 0
            ? 'SecurityGroupsNotFound'
            : amis.length === 0
              ? 'AMIsNotFound'
              : 'InstanceProfileNotFound';
    const resolved: ResolvedNodeClass = {
      name: nodeClass.metadata.name,
      amiFamily,
      subnets,
      subnetByZone: bestSubnetPerZone(subnets),
      securityGroups,
      amis,
      ready: {
        type: 'Ready',
        status: problems.length === 0 ? 'True' : 'False',
        reason,
        message: problems.length === 0 ? '' : `EC2NodeClass ${nodeClass.metadata.name}: ${problems.join('; ')}`,
      },
      resolvedAt: now,
    };
    if (instanceProfile) resolved.instanceProfile = instanceProfile;
    return resolved;
  }
}
