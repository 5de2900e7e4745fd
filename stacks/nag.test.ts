import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { synthCluster } from './testing/synth';

const PRIVATE = {
  endpoint: {
    access: 'private',
    vpcId: 'vpc-0a1b2c3d4e5f60718',
    subnetIds: ['subnet-0a1b2c3d4e5f60718'],
    securityGroupIds: ['sg-0a1b2c3d4e5f60718'],
  },
  queueEncryption: 'kms',
  forwarder: {
    identity: 'irsa',
    oidcProviderArn: 'arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC',
  },
  alarms: { snsTopicArn: 'arn:aws:sns:us-west-2:111122223333:ops' },
};

describe('cdk-nag AwsSolutions', () => {
  for (const [name, overrides] of [
    ['public endpoint, Pod Identity, email alarms', {}],
    ['private endpoint, KMS queues, IRSA, SNS topic', PRIVATE],
  ] as const) {
    it(`passes with every acknowledgement justified: ${name}`, () => {
      const { stack } = synthCluster(overrides);
      const report = new AwsSolutionsChecks().validateScope(stack);
      const findings = report.violations.map(
        (v) =>
          `${v.ruleName}: ${v.violatingResources.map((r) => r.locations?.join(',') ?? r.resourceLogicalId).join(' ')}`,
      );
      expect(findings).toEqual([]);
    });
  }
});
