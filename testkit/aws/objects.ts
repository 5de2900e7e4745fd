// The EKS cluster the shared/aws tests launch into.
import type { ClusterInfo } from '../../shared/aws/ec2/nodeclass';

export const testCluster: ClusterInfo = {
  name: 'test-cluster',
  region: 'us-east-1',
  endpoint: 'https://ABCDEF.gr7.us-east-1.eks.amazonaws.com',
  caData: 'Q0EK',
  serviceCidr: '10.100.0.0/16',
  kubernetesVersion: '1.31',
};
