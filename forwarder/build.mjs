// Bundles the forwarder into one ESM file for the image: node forwarder/build.mjs [outdir]
import { build } from 'esbuild';

const outdir = process.argv[2] ?? 'dist/forwarder';
await build({
  entryPoints: ['forwarder/main.ts'],
  outfile: `${outdir}/main.mjs`,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  minify: true,
  sourcemap: 'external',
  legalComments: 'external',
  // Some AWS SDK dependencies still call require(); give the ESM bundle one.
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
});
console.log(`bundled ${outdir}/main.mjs`);
