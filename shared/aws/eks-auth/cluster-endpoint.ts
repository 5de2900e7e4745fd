// Where the cluster's API server is and which CA signs its certificate. Configuration wins; otherwise one
// eks:DescribeCluster per warm container (the endpoint and CA of a cluster do not change while it exists).
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

const cache = new Map<string, Promise<ClusterEndpoint>>();

export async function resolveClusterEndpoint(request: EndpointRequest, eks: EKSClient): Promise<ClusterEndpoint> {
  if (request.endpoint && request.caData) return { endpoint: request.endpoint, caData: request.caData };
  let pending = cache.get(request.cluster);
  if (!pending) {
    pending = describe(request.cluster, eks);
    cache.set(request.cluster, pending);
    // A failed lookup must not poison the warm container.
    pending.catch(() => cache.delete(request.cluster));
  }
  const found = await pending;
  return { endpoint: request.endpoint ?? found.endpoint, caData: request.caData ?? found.caData };
}

async function describe(cluster: string, eks: EKSClient): Promise<ClusterEndpoint> {
  const out = await eks.send(new DescribeClusterCommand({ name: cluster }));
  const endpoint = out.cluster?.endpoint;
  const caData = out.cluster?.certificateAuthority?.data;
  if (!endpoint || !caData) {
    throw new Error(`eks:DescribeCluster for cluster "${cluster}" returned no endpoint or certificate authority`);
  }
  return { endpoint, caData };
}

/** For tests: forget cached lookups. */
export function clearEndpointCache(): void {
  cache.clear();
}
