// Production wiring: credentials from the default chain (the Lambda's role), endpoint and CA from configuration or
// DescribeCluster, a token refreshed every 14 minutes. The EKS client lives at module scope so a warm container
// reuses its connections and its cached DescribeCluster answer.
import { EKSClient } from '@aws-sdk/client-eks';
import type { KubeConfig } from '@kubernetes/client-node';
import { resolveClusterEndpoint } from './cluster-endpoint';
import { buildKubeConfig } from './kubeconfig';
import { type CredentialProvider, EksTokenProvider } from './token';

export {
  type ClusterEndpoint,
  clearEndpointCache,
  type DescribedCluster,
  describeCluster,
  resolveClusterEndpoint,
} from './cluster-endpoint';
export { buildKubeConfig, type KubeConfigOptions, type TokenSource } from './kubeconfig';
export * from './token';

let defaultEks: EKSClient | undefined;

export interface EksKubeConfigOptions {
  cluster: string;
  region: string;
  endpoint?: string;
  caData?: string;
  /** Defaults to the SDK's default credential chain. */
  credentials?: CredentialProvider;
  eks?: EKSClient;
}

export async function createEksKubeConfig(options: EksKubeConfigOptions): Promise<KubeConfig> {
  defaultEks ??= new EKSClient({ region: options.region });
  const eks = options.eks ?? defaultEks;
  const target = await resolveClusterEndpoint(options, eks);
  const credentials = options.credentials ?? (() => eks.config.credentials());
  const tokens = new EksTokenProvider({ cluster: options.cluster, region: options.region, credentials });
  return buildKubeConfig({ cluster: options.cluster, endpoint: target.endpoint, caData: target.caData, tokens });
}
