// A Lambda context for tests: the remaining time is whatever the test says it is.
import type { Context } from 'aws-lambda';

export function fakeContext(
  remainingMs: () => number = () => 60_000,
  functionName = 'karpless-demo-provisioner',
): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-west-2:111122223333:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/11/21/[$LATEST]abcdef',
    getRemainingTimeInMillis: remainingMs,
    done() {},
    fail() {},
    succeed() {},
  };
}
