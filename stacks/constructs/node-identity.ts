// The IAM role and instance profile of the nodes Karpless launches (the four AWS managed policies every EKS node
// needs, as in the Karpenter setups users come from), and its EKS access entry so nodes can join.
import { Validations } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

export const NODE_MANAGED_POLICIES = [
  'AmazonEKSWorkerNodePolicy',
  'AmazonEKS_CNI_Policy',
  'AmazonEC2ContainerRegistryReadOnly',
  'AmazonSSMManagedInstanceCore',
] as const;

export class NodeIdentity extends Construct {
  readonly role: iam.Role;
  readonly instanceProfile: iam.InstanceProfile;
  readonly accessEntry: eks.CfnAccessEntry;

  constructor(scope: Construct, id: string, cluster: string) {
    super(scope, id);
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: `Nodes launched by Karpless for cluster ${cluster}`,
      managedPolicies: NODE_MANAGED_POLICIES.map((p) => iam.ManagedPolicy.fromAwsManagedPolicyName(p)),
    });
    for (const policy of NODE_MANAGED_POLICIES) {
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${policy}]`,
        reason:
          'EKS worker nodes need exactly these AWS managed policies (kubelet, VPC CNI, ECR pulls, SSM); EKS managed ' +
          'node groups and Karpenter attach the same ones, and AWS keeps them current with new EKS features.',
      });
    }
    this.instanceProfile = new iam.InstanceProfile(this, 'InstanceProfile', { role: this.role });
    this.accessEntry = new eks.CfnAccessEntry(this, 'AccessEntry', {
      clusterName: cluster,
      principalArn: this.role.roleArn,
      type: 'EC2_LINUX',
    });
  }
}
