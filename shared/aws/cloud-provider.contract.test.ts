// The shared CloudProvider contract, run against the AWS provider over an in-memory EC2 (aws-sdk-client-mock).
import { describeCloudProviderContract } from '../../test/contracts/cloud-provider.contract';
import { AwsCloudProvider } from './cloud-provider';
import { fakeAws } from './testing/fake-aws';
import { makeNodeClass, makeNodePool, testCluster } from './testing/objects';

describeCloudProviderContract('AwsCloudProvider', async () => {
  const aws = fakeAws();
  const provider = new AwsCloudProvider({
    cluster: testCluster,
    ec2: aws.ec2Client,
    ssm: aws.ssmClient,
    iam: aws.iamClient,
    sleep: async () => {},
  });
  return {
    provider,
    nodePool: makeNodePool(),
    nodeClass: makeNodeClass(),
    injectInsufficientCapacity: (o) => {
      aws.state.noCapacity.add(`${o.instanceType}/${o.zone}/${o.capacityType}`);
    },
    cleanup: () => aws.restore(),
  };
});
