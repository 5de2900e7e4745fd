// `cdk synth` / `cdk deploy` entry (cdk.json). The clusters file is named by the `clustersFile` context; a bad file
// prints every problem and exits 2 instead of a stack trace.
import { App } from 'aws-cdk-lib';
import { ValidationError } from '../shared/errors';
import { buildApp } from './build-app';

const app = new App();
// `-c skipBundling=true` synthesizes the infrastructure without building the functions (fast, for reviews and
// diffs of everything but code); the CDK skips bundling for stacks not listed in `aws:cdk:bundling-stacks`.
if (['true', true].includes(app.node.tryGetContext('skipBundling'))) app.node.setContext('aws:cdk:bundling-stacks', []);
const file = app.node.tryGetContext('clustersFile');
if (typeof file !== 'string' || file === '') {
  process.stderr.write('cdk.json: set the context "clustersFile" to the YAML file that lists your clusters\n');
  process.exit(2);
}
try {
  buildApp(app, file);
  app.synth();
} catch (error) {
  if (!(error instanceof ValidationError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}
