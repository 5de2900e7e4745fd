// The in-cluster forwarder's AWS identity: EKS Pod Identity by default, IRSA when an OIDC provider is configured.
// It may do one thing: send messages to this cluster's events queue.
import { Stack } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ForwarderIdentity as ForwarderConfig } from '../config';

export class ForwarderIdentity extends Construct {
  readonly role: iam.Role;
  readonly association?: eks.CfnPodIdentityAssociation;

  constructor(
    scope: Construct,
    id: string,
    cluster: string,
    config: ForwarderConfig,
    queue: sqs.IQueue,
    key?: kms.IKey,
  ) {
    super(scope, id);
    const subject = `system:serviceaccount:${config.namespace}:${config.serviceAccount}`;
    if (config.identity === 'irsa') {
      const issuer = config.oidcProviderArn.slice(
        config.oidcProviderArn.indexOf('oidc-provider/') + 'oidc-provider/'.length,
      );
      this.role = new iam.Role(this, 'Role', {
        description: `Karpless forwarder of ${cluster} (IRSA, ${subject})`,
        assumedBy: new iam.FederatedPrincipal(
          config.oidcProviderArn,
          { StringEquals: { [`${issuer}:sub`]: subject, [`${issuer}:aud`]: 'sts.amazonaws.com' } },
          'sts:AssumeRoleWithWebIdentity',
        ),
      });
    } else {
      this.role = new iam.Role(this, 'Role', {
        description: `Karpless forwarder of ${cluster} (Pod Identity, ${subject})`,
        // sts:TagSession besides sts:AssumeRole (withSessionTags): EKS Pod Identity passes session tags, and the
        // conditions read them (docs/aws.md, "Forwarder identity").
        assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com')
          .withConditions({ StringEquals: podIdentityConditions(this, cluster, config) })
          .withSessionTags(),
      });
      this.association = new eks.CfnPodIdentityAssociation(this, 'PodIdentity', {
        clusterName: cluster,
        namespace: config.namespace,
        serviceAccount: config.serviceAccount,
        roleArn: this.role.roleArn,
        // The trust policy's conditions read these tags: without them no pod could assume the role.
        disableSessionTags: false,
      });
    }
    const statements = [
      new iam.PolicyStatement({ sid: 'SendClusterEvents', actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
    ];
    if (key) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'EncryptMessages',
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [key.keyArn],
        }),
      );
    }
    this.role.attachInlinePolicy(new iam.Policy(this, 'Policy', { statements }));
  }
}

/** Who may assume the role through Pod Identity: the EKS service acting for this account, for this cluster's
 * forwarder service account only. Without them, any Pod Identity association in the account (another cluster's, or a
 * pod in another namespace of this one) that names the role could take it. The cluster is in the stack's account and
 * region: the stack creates the association there. */
export function podIdentityConditions(
  scope: Construct,
  cluster: string,
  config: { namespace: string; serviceAccount: string },
): Record<string, string> {
  const stack = Stack.of(scope);
  return {
    'aws:SourceAccount': stack.account,
    'aws:RequestTag/eks-cluster-arn': stack.formatArn({ service: 'eks', resource: 'cluster', resourceName: cluster }),
    'aws:RequestTag/kubernetes-namespace': config.namespace,
    'aws:RequestTag/kubernetes-service-account': config.serviceAccount,
  };
}
