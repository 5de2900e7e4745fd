// Test helpers: synthesize a ClusterStack without bundling (the CDK skips bundling for stacks not listed in
// `aws:cdk:bundling-stacks`) and with every function pointed at the stub entry.
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ClusterStack } from '../cluster-stack';
import { type ClusterConfig, validateClusters } from '../config';
import { REPO_ROOT } from '../constructs/control-functions';

export const STUB_ENTRY = join(REPO_ROOT, 'stacks', 'testing', 'stub-handler.ts');

export function testApp(): App {
  // The built-in CloudFormation validation costs ~10 s a stack; `cdk synth` keeps it on.
  return new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
}

export function clusterConfig(overrides: Record<string, unknown> = {}): ClusterConfig {
  const [config] = validateClusters(
    {
      clusters: [
        {
          name: 'demo',
          account: '111122223333',
          region: 'us-west-2',
          kubernetesVersion: '1.31',
          alarms: { email: 'oncall@example.com' },
          ...overrides,
        },
      ],
    },
    'test.yaml',
  );
  return config as ClusterConfig;
}

export function synthCluster(overrides: Record<string, unknown> = {}): { stack: ClusterStack; template: Template } {
  const stack = new ClusterStack(testApp(), { config: clusterConfig(overrides), entryOverride: STUB_ENTRY });
  return { stack, template: Template.fromStack(stack) };
}
