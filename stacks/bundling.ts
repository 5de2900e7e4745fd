// How each function is built: esbuild settings, the modules swapped for shims, and the files shipped beside the
// bundle. The CDK (NodejsFunction, esbuild CLI) and the bundle tests and benchmark (esbuild API) both read this, so
// what is measured and tested is what is deployed.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Some dependencies are CommonJS and call require(); an ESM bundle needs it defined. */
const REQUIRE_BANNER = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/** The Node 22 runtime ships AWS SDK v3: leaving it out keeps bundles small and cold starts short. */
export const EXTERNAL_MODULES = ['@aws-sdk/*'];

/**
 * Packages @kubernetes/client-node imports for features the functions never use, replaced in the bundle by
 * stacks/lambda-shims/ (each throws a clear "not supported in the Karpless Lambda bundle" error if ever reached).
 * The functions build their KubeConfig from options (endpoint, CA, an EKS token from their IAM role), make only REST
 * calls, and connect without a proxy, so none of these paths runs in Lambda. Together they were ~520 KiB minified,
 * whatwg-url with its tr46 Unicode tables alone ~280 KiB. Tests and the CLI run the real packages.
 */
export const LAMBDA_SHIMS: Readonly<Record<string, string>> = {
  // node-fetch v2 uses it only where Node's URL is missing; the shim re-exports Node's URL.
  'whatwg-url': 'whatwg-url.ts',
  // OIDC, Azure and GCP kubeconfig auth providers.
  'openid-client': 'openid-client.ts',
  'jsonpath-plus': 'jsonpath-plus.ts',
  // Kubeconfig YAML parsing (loadFromFile/loadFromString); the functions use loadFromOptions.
  'js-yaml': 'js-yaml.ts',
  // Kubeconfig proxy-url support.
  'socks-proxy-agent': 'proxy-agents.ts',
  hpagent: 'proxy-agents.ts',
  // exec/attach/port-forward (WebSockets) and cp (tar).
  'isomorphic-ws': 'streaming.ts',
  'tar-fs': 'tar-fs.ts',
};

/** Files the bundle reads at run time, copied beside index.mjs: repository path → path in the bundle. */
export const BUNDLE_ASSETS: readonly { from: string; to: string }[] = [
  // The HiGHS LP solver's WebAssembly; shared/scheduling/lp.ts locates it beside the code that loads it.
  { from: 'node_modules/highs/build/highs.wasm', to: 'highs.wasm' },
  // The embedded instance-type snapshot; shared/catalog/load.ts reads ./data/us-east-1.json beside its module.
  { from: 'shared/catalog/data/us-east-1.json', to: 'data/us-east-1.json' },
];

function shimPath(file: string): string {
  return join(REPO_ROOT, 'stacks', 'lambda-shims', file);
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
    esbuildArgs: { '--alias': Object.entries(LAMBDA_SHIMS).map(([pkg, file]) => `${pkg}=${shimPath(file)}`) },
    commandHooks: {
      beforeBundling: () => [],
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

/** The same build through the esbuild API, for the bundle test and bench/bundle-size.ts. */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
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
    alias: Object.fromEntries(Object.entries(LAMBDA_SHIMS).map(([pkg, file]) => [pkg, shimPath(file)])),
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
