// The AWS provider over the in-memory EC2/SSM/IAM, as every shared/aws test builds it.
import { AwsCloudProvider, type AwsCloudProviderOptions } from '../../shared/aws/cloud-provider';
import type { FakeAws } from './fake-aws';
import { testCluster } from './objects';

/** An AwsCloudProvider for testCluster over `aws` that never sleeps between retries; `extra` adds or overrides options. */
export function fakeAwsProvider(aws: FakeAws, extra: Partial<AwsCloudProviderOptions> = {}): AwsCloudProvider {
  return new AwsCloudProvider({
    cluster: testCluster,
    ec2: aws.ec2Client,
    ssm: aws.ssmClient,
    iam: aws.iamClient,
    sleep: async () => {},
    ...extra,
  });
}
