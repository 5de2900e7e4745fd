// How each function is built: esbuild settings, the modules swapped for shims, and the files shipped beside the
// bundle. The CDK (NodejsFunction, esbuild CLI) and the bundle tests and benchmark (esbuild API) both read this, so
// what is measured and tested is what is deployed.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { prebuildClientNode } from './client-node-prebuild';
import { shimAliases } from './lambda-shims';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export { LAMBDA_SHIMS, shimAliases } from './lambda-shims';

/** Some dependencies are CommonJS and call require(); an ESM bundle needs it defined. */
const REQUIRE_BANNER = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/** The Node 22 runtime ships AWS SDK v3: leaving it out keeps bundles small and cold starts short. */
export const EXTERNAL_MODULES = ['@aws-sdk/*'];

/** Files the bundle reads at run time, copied beside index.mjs: repository path → path in the bundle. */
export const BUNDLE_ASSETS: readonly { from: string; to: string }[] = [
  // The HiGHS LP solver's WebAssembly; shared/scheduling/lp.ts locates it beside the code that loads it.
  { from: 'node_modules/highs/build/highs.wasm', to: 'highs.wasm' },
  // The embedded instance-type snapshot; shared/catalog/load.ts reads ./data/us-east-1.json beside its module.
  { from: 'shared/catalog/data/us-east-1.json', to: 'data/us-east-1.json' },
];

/**
 * Where the stack's beforeBundling hook writes client-node reduced to KubeConfig (stacks/client-node-prebuild.ts);
 * the function build resolves @kubernetes/client-node to it. Not in git: node_modules/.cache.
 */
export const CLIENT_NODE_LEAN = join(REPO_ROOT, 'node_modules', '.cache', 'karpless', 'client-node-lean.mjs');

function aliasesWith(clientNode: string): Record<string, string> {
  return { ...shimAliases(), '@kubernetes/client-node': clientNode };
}

/** The CDK esbuild settings of every function, exported so a test can assert them without bundling. */
export function bundlingOptions(): nodejs.BundlingOptions {
  return {
    minify: true,
    sourceMap: true,
    sourcesContent: false,
    target: 'node22',
    format: nodejs.OutputFormat.ESM,
    mainFields: ['module', 'main'],
    banner: REQUIRE_BANNER,
    externalModules: [...EXTERNAL_MODULES],
    esbuildArgs: { '--alias': Object.entries(aliasesWith(CLIENT_NODE_LEAN)).map(([pkg, path]) => `${pkg}=${path}`) },
    commandHooks: {
      beforeBundling: (inputDir: string) => [
        `cd "${inputDir}" && node --import tsx stacks/client-node-prebuild.ts "${CLIENT_NODE_LEAN}"`,
      ],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) =>
        BUNDLE_ASSETS.map(
          ({ from, to }) =>
            `mkdir -p "${dirname(join(outputDir, to))}" && cp "${join(inputDir, from)}" "${join(outputDir, to)}"`,
        ),
    },
    forceDockerBundling: false,
  };
}

/**
 * The same build through the esbuild API, for the bundle test and bench/bundle-size.ts: runs the client-node
 * prebuild into `workDir` (as the beforeBundling hook does) and returns the options.
 */
export async function esbuildOptions(entry: string, outfile: string, workDir: string): Promise<BuildOptions> {
  const clientNode = join(workDir, 'client-node-lean.mjs');
  await prebuildClientNode(clientNode, shimAliases());
  return {
    entryPoints: [join(REPO_ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_BANNER },
    external: [...EXTERNAL_MODULES],
    alias: aliasesWith(clientNode),
    logLevel: 'error',
  };
}

/** Copies BUNDLE_ASSETS into a bundle directory, as the stack's afterBundling hook does. */
export function copyBundleAssets(outdir: string): void {
  for (const { from, to } of BUNDLE_ASSETS) {
    mkdirSync(dirname(join(outdir, to)), { recursive: true });
    copyFileSync(join(REPO_ROOT, from), join(outdir, to));
  }
}
