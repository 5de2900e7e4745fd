// The shared CloudProvider contract, run against the AWS provider over an in-memory EC2 (aws-sdk-client-mock).

import { fakeAws } from '../../testkit/aws/fake-aws';
import { fakeAwsProvider } from '../../testkit/aws/provider';
import { ec2NodeClass, nodePool } from '../../testkit/builders';
import { describeCloudProviderContract } from './cloud-provider.contract';

describeCloudProviderContract('AwsCloudProvider', async () => {
  const aws = fakeAws();
  const provider = fakeAwsProvider(aws);
  return {
    provider,
    nodePool: nodePool(),
    nodeClass: ec2NodeClass(),
    injectInsufficientCapacity: (o) => {
      aws.state.noCapacity.add(`${o.instanceType}/${o.zone}/${o.capacityType}`);
    },
    cleanup: () => aws.restore(),
  };
});
