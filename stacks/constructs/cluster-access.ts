// EKS access entries for the functions' roles, mapped to the Kubernetes group the project's ClusterRole is bound
// to (printed by `karpless forwarder manifest`). No aws-auth ConfigMap edits.
import * as eks from 'aws-cdk-lib/aws-eks';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { CONTROLLER_GROUP } from '../../shared/api/controller-group';

export class FunctionAccessEntries extends Construct {
  readonly entries: eks.CfnAccessEntry[] = [];

  constructor(scope: Construct, id: string, cluster: string, roles: Record<string, iam.IRole>) {
    super(scope, id);
    for (const [name, role] of Object.entries(roles)) {
      this.entries.push(
        new eks.CfnAccessEntry(this, name, {
          clusterName: cluster,
          principalArn: role.roleArn,
          type: 'STANDARD',
          kubernetesGroups: [CONTROLLER_GROUP],
        }),
      );
    }
  }
}
