// How each function is built: esbuild settings, the modules swapped for shims, and the files shipped beside the
// bundle. The CDK (NodejsFunction, esbuild CLI) and the bundle tests and benchmark (esbuild API) both read this, so
// what is measured and tested is what is deployed.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions, Metafile } from 'esbuild';
import { shimAliases } from './lambda-shims';
import { prebuild, prebuildAliases } from './prebuild';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export { LAMBDA_SHIMS, shimAliases } from './lambda-shims';

/** Some dependencies are CommonJS and call require(); an ESM bundle needs it defined. */
const REQUIRE_BANNER = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/**
 * Nothing is left to the runtime. The nodejs22.x runtime ships AWS SDK v3, but as CommonJS packages of one file per
 * client (EC2's is 2.1 MB) that Node must read and compile whole: importing the six clients took ~800 ms of a ~950 ms
 * cold import. Bundled from their ES modules with the schema prebuild, only the commands a function sends remain.
 */
export const EXTERNAL_MODULES: readonly string[] = [];

/** Files a bundle reads at run time, copied beside index.mjs: repository path → path in the bundle. `planning`:
 * only the functions that plan (and so run the solver) read it. */
export const BUNDLE_ASSETS: readonly { from: string; to: string; planning?: true }[] = [
  // The HiGHS LP solver's WebAssembly; shared/scheduling/lp.ts locates it beside the code that loads it.
  { from: 'node_modules/highs/build/highs.wasm', to: 'highs.wasm', planning: true },
  // The embedded instance-type snapshot; shared/catalog/load.ts reads ./data/us-east-1.json beside its module.
  { from: 'shared/catalog/data/us-east-1.json', to: 'data/us-east-1.json' },
];

/** The assets a function ships: all of them where it plans, else those it reads without planning. */
export const bundleAssets = (planning: boolean) => BUNDLE_ASSETS.filter((a) => planning || !a.planning);

/**
 * Where the stack's beforeBundling hook writes the prebuild (stacks/prebuild.ts: client-node reduced to KubeConfig,
 * the AWS SDK clients with tree-shakeable schemas), which the function build resolves those packages to. Not in git.
 */
export const PREBUILD_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'karpless');

function aliasesWith(prebuilt: Record<string, string>): Record<string, string> {
  return { ...shimAliases(), ...prebuilt };
}

/** The CDK esbuild settings of a function, exported so a test can assert them without bundling. */
export function bundlingOptions(planning: boolean): nodejs.BundlingOptions {
  return {
    minify: true,
    sourceMap: true,
    sourcesContent: false,
    target: 'node22',
    format: nodejs.OutputFormat.ESM,
    mainFields: ['module', 'main'],
    banner: REQUIRE_BANNER,
    externalModules: [...EXTERNAL_MODULES],
    esbuildArgs: {
      '--alias': Object.entries(aliasesWith(prebuildAliases(PREBUILD_DIR))).map(([pkg, path]) => `${pkg}=${path}`),
    },
    commandHooks: {
      beforeBundling: (inputDir: string) => [
        `cd "${inputDir}" && node --import tsx stacks/prebuild.ts "${PREBUILD_DIR}"`,
      ],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) =>
        bundleAssets(planning).map(
          ({ from, to }) =>
            `mkdir -p "${dirname(join(outputDir, to))}" && cp "${join(inputDir, from)}" "${join(outputDir, to)}"`,
        ),
    },
    forceDockerBundling: false,
  };
}

/**
 * The same build through the esbuild API, for the bundle test and bench/bundle-size.ts: runs the prebuild into
 * `workDir` (as the beforeBundling hook does) and returns the options.
 */
export async function esbuildOptions(entry: string, outfile: string, workDir: string): Promise<BuildOptions> {
  const prebuilt = await prebuild(workDir);
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
    alias: aliasesWith(prebuilt),
    logLevel: 'error',
  };
}

/** Copies a function's assets into its bundle directory, as the stack's afterBundling hook does. */
export function copyBundleAssets(outdir: string, planning: boolean): void {
  for (const { from, to } of bundleAssets(planning)) {
    mkdirSync(dirname(join(outdir, to)), { recursive: true });
    copyFileSync(join(REPO_ROOT, from), join(outdir, to));
  }
}

/** An input of a function build that is AWS SDK code: its packages, and the prebuilt copies of its clients. */
const SDK_INPUT = /node_modules\/(\.cache\/karpless\/aws-sdk\/)?@(aws-sdk|smithy|aws-crypto)\//;

/** Bytes of a function's index.mjs that are AWS SDK code, and the rest (ours and other packages), from the build's
 * metafile. */
export function sdkShare(metafile: Metafile): { sdk: number; rest: number } {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint);
  let sdk = 0;
  let rest = 0;
  for (const [file, input] of Object.entries(out?.inputs ?? {})) {
    if (SDK_INPUT.test(file)) sdk += input.bytesInOutput;
    else rest += input.bytesInOutput;
  }
  return { sdk, rest };
}
