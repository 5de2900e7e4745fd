// Builds the part of @kubernetes/client-node a Lambda bundle uses (KubeConfig) into one ESM file, which the function
// build then aliases @kubernetes/client-node to (stacks/bundling.ts). Why: client-node's entry re-exports its
// generated models (`export * from './models/all.js'`), and each model file assigns static fields, which esbuild must
// keep as possible side effects since the package does not declare `sideEffects: false`; that is ~330 KiB the
// functions never reach (they make plain REST calls, shared/kube/rest.ts). Here client-node's own modules (dist/,
// none of which is imported for its side effects alone) are marked side-effect free, so only what KubeConfig
// references survives. Same code, dead parts left out.
// Run from stacks/prebuild.ts.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

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

const NODE_MODULES = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');
/** Bump when the build below changes. */
const BUILD_REVISION = 1;

/** What the output depends on: client-node's version, the exports kept, and the shims (their paths and code). */
function cacheKey(aliases: Record<string, string>): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ BUILD_REVISION, USED_EXPORTS, aliases }));
  hash.update(readFileSync(join(NODE_MODULES, '@kubernetes', 'client-node', 'package.json')));
  for (const path of Object.values(aliases))
    if (existsSync(path) && statSync(path).isFile()) hash.update(readFileSync(path));
  return hash.digest('hex').slice(0, 16);
}

/**
 * Writes the lean client-node module; `aliases` are the function build's shims, applied here too. The build takes
 * seconds (the plugin resolves each of client-node's thousand modules), so its output is kept in
 * node_modules/.cache by cacheKey and copied from there.
 */
export async function prebuildClientNode(outfile: string, aliases: Record<string, string>): Promise<void> {
  const cached = join(NODE_MODULES, '.cache', 'karpless', 'client-node', `${cacheKey(aliases)}.mjs`);
  if (!existsSync(cached)) {
    const work = `${cached}.${process.pid}.tmp`;
    await buildLean(work, aliases);
    // Atomic: a build running at once either finds no file or a whole one.
    renameSync(work, cached);
  }
  mkdirSync(dirname(outfile), { recursive: true });
  copyFileSync(cached, outfile);
}

async function buildLean(outfile: string, aliases: Record<string, string>): Promise<void> {
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
