// The shared CloudProvider contract, run against the AWS provider over an in-memory EC2 (aws-sdk-client-mock).

import { fakeAws } from '../../testkit/aws/fake-aws';
import { makeNodeClass, makeNodePool } from '../../testkit/aws/objects';
import { fakeAwsProvider } from '../../testkit/aws/provider';
import { describeCloudProviderContract } from './cloud-provider.contract';

describeCloudProviderContract('AwsCloudProvider', async () => {
  const aws = fakeAws();
  const provider = fakeAwsProvider(aws);
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
