// What the functions need to know about their EKS cluster: where its API server is and which CA signs its
// certificate, and, for user data, its service CIDR and Kubernetes version. Configuration wins; otherwise one
// eks:DescribeCluster per warm container answers all of it (none of these change while a cluster exists, bar a
// version upgrade, which a new container sees).
import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';

export interface ClusterEndpoint {
  /** https URL of the API server. */
  endpoint: string;
  /** Base64 PEM of the cluster CA, as EKS returns it and as kubeconfig's certificate-authority-data expects it. */
  caData: string;
}

export interface EndpointRequest {
  cluster: string;
  endpoint?: string;
  caData?: string;
}

/** The fields of one DescribeCluster answer the functions read; any may be missing. */
export interface DescribedCluster {
  endpoint?: string;
  caData?: string;
  serviceCidr?: string;
  kubernetesVersion?: string;
}

const cache = new Map<string, Promise<DescribedCluster>>();

/** One eks:DescribeCluster per cluster per warm container, shared by every caller that needs it. */
export function describeCluster(cluster: string, eks: EKSClient): Promise<DescribedCluster> {
  let pending = cache.get(cluster);
  if (!pending) {
    pending = send(cluster, eks);
    cache.set(cluster, pending);
    // A failed lookup must not poison the warm container.
    pending.catch(() => cache.delete(cluster));
  }
  return pending;
}

async function send(cluster: string, eks: EKSClient): Promise<DescribedCluster> {
  const c = (await eks.send(new DescribeClusterCommand({ name: cluster }))).cluster;
  return {
    ...(c?.endpoint ? { endpoint: c.endpoint } : {}),
    ...(c?.certificateAuthority?.data ? { caData: c.certificateAuthority.data } : {}),
    ...(c?.kubernetesNetworkConfig?.serviceIpv4Cidr ? { serviceCidr: c.kubernetesNetworkConfig.serviceIpv4Cidr } : {}),
    ...(c?.version ? { kubernetesVersion: c.version } : {}),
  };
}

export async function resolveClusterEndpoint(request: EndpointRequest, eks: EKSClient): Promise<ClusterEndpoint> {
  if (request.endpoint && request.caData) return { endpoint: request.endpoint, caData: request.caData };
  const found = await describeCluster(request.cluster, eks);
  const endpoint = request.endpoint ?? found.endpoint;
  const caData = request.caData ?? found.caData;
  if (!endpoint || !caData) {
    throw new Error(
      `eks:DescribeCluster for cluster "${request.cluster}" returned no endpoint or certificate authority`,
    );
  }
  return { endpoint, caData };
}

/** For tests: forget cached lookups. */
export function clearEndpointCache(): void {
  cache.clear();
}
