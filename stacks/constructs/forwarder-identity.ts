// The in-cluster forwarder's AWS identity: EKS Pod Identity by default, IRSA when an OIDC provider is configured.
// It may do one thing: send messages to this cluster's events queue.
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
        assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com'),
      });
      // Pod Identity needs sts:TagSession besides sts:AssumeRole in the trust policy.
      this.role.assumeRolePolicy?.addStatements(
        new iam.PolicyStatement({
          actions: ['sts:TagSession'],
          principals: [new iam.ServicePrincipal('pods.eks.amazonaws.com')],
        }),
      );
      this.association = new eks.CfnPodIdentityAssociation(this, 'PodIdentity', {
        clusterName: cluster,
        namespace: config.namespace,
        serviceAccount: config.serviceAccount,
        roleArn: this.role.roleArn,
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
