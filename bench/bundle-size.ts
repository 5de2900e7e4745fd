// Lambda bundle size and cold-import time per deployed function, built exactly as the stack builds them
// (stacks/bundling.ts). Run: npx tsx bench/bundle-size.ts [--runs 5] [--keep DIR]
// Bundle bytes are index.mjs (minified JS, no source map), split by the build's metafile into AWS SDK code and the
// rest, and deflated (what a Lambda zip stores); asset bytes are the files copied beside it. Cold import is
// `await import('./index.mjs')` timed inside a fresh node process (node's own start-up excluded), median of the runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { bundleAssets, copyBundleAssets, esbuildOptions, sdkShare } from '../stacks/bundling';
import { FUNCTION_NAMES, FUNCTIONS, plans } from '../stacks/functions';

/** Issue 5's targets, as decided in docs/architecture.md: the function's own code (index.mjs less the AWS SDK it
 * bundles in place of the runtime's copy) within 600 KiB, and the cold import within 200 ms. */
export const OWN_CODE_LIMIT_BYTES = 600 * 1024;
export const IMPORT_LIMIT_MS = 200;

export const meetsSizeTarget = (f: BundleFigures) => f.restBytes <= OWN_CODE_LIMIT_BYTES;
export const meetsImportTarget = (f: BundleFigures) => f.coldImportMs <= IMPORT_LIMIT_MS;

export interface BundleFigures {
  name: string;
  bundleBytes: number;
  /** Of bundleBytes: AWS SDK code, and everything else. */
  sdkBytes: number;
  restBytes: number;
  deflatedBytes: number;
  assetBytes: number;
  coldImportMs: number;
  coldImportRangeMs: [number, number];
  /** The largest inputs by bytes in the minified output, grouped by package (or repository folder). */
  top: [string, number][];
}

function groupInputs(metafile: Metafile): [string, number][] {
  const out = Object.values(metafile.outputs).find((o) => o.entryPoint);
  const by = new Map<string, number>();
  for (const [file, v] of Object.entries(out?.inputs ?? {})) {
    // The prebuilt SDK copies (node_modules/.cache/karpless/aws-sdk/@aws-sdk/…) count as their package.
    const pkg = file
      .replace(/^.*\.cache\/karpless\/aws-sdk\//, 'node_modules/')
      .match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
    const key = pkg ?? file.split('/').slice(0, 2).join('/');
    by.set(key, (by.get(key) ?? 0) + v.bytesInOutput);
  }
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 8);
}

function coldImportMs(dir: string): number {
  const code = `const t = performance.now(); await import('./index.mjs'); console.log(performance.now() - t);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return Number(out.trim().split('\n').at(-1));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function measureBundle(name: string, dir: string, runs: number): Promise<BundleFigures> {
  mkdirSync(dir, { recursive: true });
  const spec = FUNCTIONS[name as keyof typeof FUNCTIONS];
  const result = await build({
    ...(await esbuildOptions(spec.entry, join(dir, 'index.mjs'), join(dir, '..', `${name}-work`))),
    metafile: true,
  });
  copyBundleAssets(dir, plans(spec));
  const times = Array.from({ length: runs }, () => coldImportMs(dir));
  const share = sdkShare(result.metafile as Metafile);
  return {
    name,
    bundleBytes: statSync(join(dir, 'index.mjs')).size,
    sdkBytes: share.sdk,
    restBytes: share.rest,
    deflatedBytes: deflateRawSync(readFileSync(join(dir, 'index.mjs')), { level: 9 }).length,
    assetBytes: bundleAssets(plans(spec)).reduce((sum, a) => sum + statSync(join(dir, a.to)).size, 0),
    coldImportMs: median(times),
    coldImportRangeMs: [Math.min(...times), Math.max(...times)],
    top: groupInputs(result.metafile as Metafile),
  };
}

export const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const runs = Number(args[args.indexOf('--runs') + 1] ?? 5) || 5;
  const keep = args.includes('--keep') ? args[args.indexOf('--keep') + 1] : undefined;
  const root = keep ?? mkdtempSync(join(tmpdir(), 'karpless-bundles-'));
  try {
    console.log(
      '| function | index.mjs (minified) | of which AWS SDK | own code (the rest) | ≤ 600 KiB | deflated | assets beside it | cold import, median of %d (min–max) | ≤ 200 ms |',
      runs,
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const name of FUNCTION_NAMES) {
      console.error(`  building and importing ${name} ...`);
      const f = await measureBundle(name, join(root, name), runs);
      const ok = meetsSizeTarget(f) ? 'yes' : 'no';
      const fast = meetsImportTarget(f) ? 'yes' : 'no';
      const [lo, hi] = f.coldImportRangeMs.map((ms) => ms.toFixed(0));
      console.log(
        `| ${name} | ${kib(f.bundleBytes)} (${f.bundleBytes} B) | ${kib(f.sdkBytes)} | ${kib(f.restBytes)} | ${ok} | ${kib(f.deflatedBytes)} | ${kib(f.assetBytes)} | ${f.coldImportMs.toFixed(0)} ms (${lo}–${hi}) | ${fast} |`,
      );
      console.error(`  ${name} largest inputs: ${f.top.map(([k, v]) => `${k} ${kib(v)}`).join(', ')}`);
    }
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
