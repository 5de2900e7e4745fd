// Builds the multi-cluster app: one ClusterStack per configured cluster, with cdk-nag's AwsSolutions checks.
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ClusterStack, type ClusterStackProps } from './cluster-stack';
import { loadClusters } from './config';

export function buildApp(
  app: App,
  clustersFile: string,
  overrides: Omit<ClusterStackProps, 'config'> = {},
): ClusterStack[] {
  const stacks = loadClusters(clustersFile).map((config) => new ClusterStack(app, { ...overrides, config }));
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stacks;
}
