// Builds the part of @kubernetes/client-node a Lambda bundle uses (KubeConfig) into one ESM file, which the function
// build then aliases @kubernetes/client-node to (stacks/bundling.ts). Why: client-node's entry re-exports its
// generated models (`export * from './models/all.js'`), and each model file assigns static fields, which esbuild must
// keep as possible side effects since the package does not declare `sideEffects: false`; that is ~330 KiB the
// functions never reach (they make plain REST calls, shared/kube/rest.ts). Here client-node's own modules (dist/,
// none of which is imported for its side effects alone) are marked side-effect free, so only what KubeConfig
// references survives. Same code, dead parts left out.
// Run by the stack's beforeBundling hook: node --import tsx stacks/client-node-prebuild.ts OUTFILE
import { build, type Plugin } from 'esbuild';
import { shimAliases } from './lambda-shims';

/** What the Lambda code imports from @kubernetes/client-node (values; type-only imports vanish). */
const USED_EXPORTS = ['KubeConfig'];
const CLIENT_NODE_DIST = /[\\/]@kubernetes[\\/]client-node[\\/]dist[\\/]/;

const clientNodeIsPure: Plugin = {
  name: 'client-node-modules-are-pure',
  setup(b) {
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData === 'inner' || !args.importer.includes('@kubernetes')) return undefined;
      const r = await b.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        importer: args.importer,
        pluginData: 'inner',
      });
      if (r.errors.length > 0 || !CLIENT_NODE_DIST.test(r.path)) return undefined;
      return { path: r.path, sideEffects: false };
    });
  },
};

/** Writes the lean client-node module; `aliases` are the function build's shims, applied here too. */
export async function prebuildClientNode(outfile: string, aliases: Record<string, string>): Promise<void> {
  await build({
    stdin: {
      contents: `export { ${USED_EXPORTS.join(', ')} } from '@kubernetes/client-node';`,
      resolveDir: process.cwd(),
      loader: 'js',
    },
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    alias: aliases,
    external: ['@aws-sdk/*'],
    plugins: [clientNodeIsPure],
    logLevel: 'error',
  });
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  const outfile = process.argv[2];
  if (!outfile) throw new Error('usage: node --import tsx stacks/client-node-prebuild.ts OUTFILE');
  await prebuildClientNode(outfile, shimAliases());
}
