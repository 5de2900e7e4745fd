// The real ports of a function that plans and launches (provisioner, interruption): the instance-only ports of
// ports.ts plus the launching cloud adapter, which needs the cluster's endpoint, CA, service CIDR and Kubernetes
// version for user data, live prices, and the ICE cache.
import { EKSClient } from '@aws-sdk/client-eks';
import type { EC2NodeClass } from '../../shared/api/karpenter';
import { dynamoDocumentClient } from '../../shared/aws/clients';
import { AwsCloudProvider } from '../../shared/aws/cloud-provider';
import { DynamoPriceStore } from '../../shared/aws/dynamo/prices';
import { describeCluster, resolveClusterEndpoint } from '../../shared/aws/eks-auth';
import { currentPrices, withPrices } from '../../shared/aws/pricing/refresh';
import { instanceTypesFor, loadCatalog } from '../../shared/catalog';
import { loadLpSolver } from '../../shared/scheduling';
import type { ControlPlaneEnv } from './env';
import { type ControlPlanePorts, kubeFor, statePorts } from './ports';

/** Called once per container through coldStartPorts. HiGHS compiles while the cold start waits on the network (EKS,
 * DynamoDB), so the first plan starts at once; not at import, which every function and test pays for. */
export async function awsPorts(env: ControlPlaneEnv): Promise<ControlPlanePorts> {
  const solver = loadLpSolver();
  const eks = new EKSClient({ region: env.region });
  const ddb = dynamoDocumentClient({ region: env.region });
  const base = statePorts(env);
  const [kube, endpoint, info, prices] = await Promise.all([
    kubeFor(env, eks),
    resolveClusterEndpoint({ cluster: env.cluster, endpoint: env.endpoint, caData: env.caData }, eks),
    clusterFacts(env, eks),
    currentPrices(new DynamoPriceStore({ client: ddb, tableName: env.tableName, cluster: env.cluster }), () => {}),
  ]);
  const catalog = withPrices(loadCatalog(env.catalogPath), prices);
  const cloud = new AwsCloudProvider({
    cluster: { name: env.cluster, region: env.region, ...endpoint, ...info },
    instanceTypes: (nodeClass: EC2NodeClass) => instanceTypesFor(catalog, nodeClass),
    // Offerings EC2 refused while launching elsewhere (a partial fleet) are cached like any ICE.
    onUnavailable: async (offerings) => {
      await Promise.all(offerings.map((o) => base.store.markUnavailable(o)));
    },
  });
  await solver;
  return { ...base, kube, cloud };
}

/** Kubernetes version and service CIDR: from configuration, or the container's one DescribeCluster (which the
 * endpoint lookup shares). */
async function clusterFacts(
  env: ControlPlaneEnv,
  eks: EKSClient,
): Promise<{ serviceCidr: string; kubernetesVersion: string }> {
  if (env.serviceCidr && env.kubernetesVersion) {
    return { serviceCidr: env.serviceCidr, kubernetesVersion: env.kubernetesVersion };
  }
  const described = await describeCluster(env.cluster, eks);
  const serviceCidr = env.serviceCidr ?? described.serviceCidr;
  const kubernetesVersion = env.kubernetesVersion ?? described.kubernetesVersion;
  if (!serviceCidr || !kubernetesVersion) {
    throw new Error(`eks:DescribeCluster for ${env.cluster} gave no service CIDR or Kubernetes version`);
  }
  return { serviceCidr, kubernetesVersion };
}
