// What the function build resolves some packages to, written before esbuild runs: client-node reduced to KubeConfig
// (stacks/client-node-prebuild.ts) and the AWS SDK clients with tree-shakeable schemas (stacks/aws-sdk-prebuild.ts).
// The stack's beforeBundling hook runs this file; the bundle test and benchmark call prebuild() directly.
// Run: node --import tsx stacks/prebuild.ts DIR
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { awsSdkAliases, prebuildAwsSdk } from './aws-sdk-prebuild';
import { prebuildClientNode } from './client-node-prebuild';
import { clientNodeShimAliases } from './lambda-shims';

const NODE_MODULES = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');

/** The esbuild aliases to what prebuild(dir) writes: known without building it, so the CDK can pass them at synth.
 * client-node's goes into `dir`; the SDK copies always sit in node_modules/.cache (stacks/aws-sdk-prebuild.ts). */
export function prebuildAliases(dir: string): Record<string, string> {
  return { '@kubernetes/client-node': join(dir, 'client-node-lean.mjs'), ...awsSdkAliases(NODE_MODULES) };
}

/** Writes the prebuild directory and returns prebuildAliases(dir). */
export async function prebuild(dir: string): Promise<Record<string, string>> {
  await prebuildClientNode(join(dir, 'client-node-lean.mjs'), clientNodeShimAliases());
  prebuildAwsSdk(NODE_MODULES);
  return prebuildAliases(dir);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node --import tsx stacks/prebuild.ts DIR');
  const started = Date.now();
  await prebuild(dir);
  console.error(`karpless prebuild: ${dir} ready in ${Date.now() - started} ms`);
}
