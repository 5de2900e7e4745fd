// Loads the CLI fast. The CLI is TypeScript; compiling it with tsx on every run cost seconds, mostly in loading the
// whole engine and the AWS SDK for `--help`. Instead esbuild bundles it once into .cache/cli/ (split so each
// command's implementation loads only when it runs), and every run checks the size and mtime of each source file the
// bundle was built from; any change rebuilds it. `npm ci` builds it through the `prepare` script, so the first run is
// fast too. Without esbuild (`npm ci --omit=dev`) or where .cache is not writable, it falls back to tsx.
// docs/performance.md ("CLI startup") has the measurements.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, '.cache', 'cli');
const MANIFEST = join(CACHE, 'manifest.json');
/** Bump when the build below changes, so bundles made by an older launcher are rebuilt. */
const FORMAT = 1;
/** Older bundles are kept this long: a process that started on one may still load its lazy chunks. */
const KEEP_OLD_BUILDS_MS = 60 * 60 * 1000;

function readManifest() {
  try {
    const m = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    return m.format === FORMAT && m.root === ROOT ? m : undefined;
  } catch {
    return undefined;
  }
}

function isFresh(manifest) {
  // ROOT ends in a separator and the inputs are relative paths within it: joined by concatenation, as path.join's
  // normalizing of some 400 paths was a measurable part of every run's start.
  for (const [file, [mtimeMs, size]] of Object.entries(manifest.inputs)) {
    const st = statSync(ROOT + file, { throwIfNoEntry: false });
    if (!st || st.mtimeMs !== mtimeMs || st.size !== size) return false;
  }
  return true;
}

const CODE_IMPORT_META_URL = /\/\/[^\n]*|(['"`])(?:\\.|(?!\1).)*\1|import\.meta\.url/g;

/** Each source keeps its own location for `import.meta.url`, which some commands use to find files beside them. */
const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      // Strings and comments are matched first and kept, so only code mentions are replaced.
      const contents = source.replace(CODE_IMPORT_META_URL, (match) => (match === 'import.meta.url' ? url : match));
      return { contents, loader: 'ts' };
    });
  },
};

/** Builds a bundle and records its inputs; returns the path of its entry. */
export async function buildBundle() {
  const { build } = await import('esbuild');
  const id = `${Date.now().toString(36)}-${process.pid}`;
  const outdir = join(CACHE, id);
  const result = await build({
    entryPoints: { main: join(ROOT, 'cli', 'main.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir,
    outExtension: { '.js': '.mjs' },
    metafile: true,
    logLevel: 'silent',
    plugins: [keepImportMetaUrl],
  });
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = relative(ROOT, join(process.cwd(), input));
    const st = statSync(join(ROOT, file));
    inputs[file] = [st.mtimeMs, st.size];
  }
  const tmp = `${MANIFEST}.${id}`;
  writeFileSync(tmp, JSON.stringify({ format: FORMAT, root: ROOT, entry: join(id, 'main.mjs'), inputs }));
  renameSync(tmp, MANIFEST);
  removeOldBuilds(id);
  return join(outdir, 'main.mjs');
}

function removeOldBuilds(current) {
  for (const entry of readdirSync(CACHE, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === current) continue;
    const dir = join(CACHE, entry.name);
    if (Date.now() - statSync(dir).mtimeMs > KEEP_OLD_BUILDS_MS) rmSync(dir, { recursive: true, force: true });
  }
}

async function bundledEntry() {
  const manifest = readManifest();
  if (manifest && isFresh(manifest)) return join(CACHE, manifest.entry);
  mkdirSync(CACHE, { recursive: true });
  return buildBundle();
}

/** The CLI's `main`, from the bundle when it can be built, else compiled on the fly by tsx. */
export async function loadMain() {
  let entry;
  try {
    entry = await bundledEntry();
  } catch {
    // No esbuild, a read-only checkout or a source that does not compile: tsx runs the sources directly and reports
    // any compile error against them.
    const { register } = await import('tsx/esm/api');
    register();
    return (await import('./main.ts')).main;
  }
  return (await import(pathToFileURL(entry).href)).main;
}

if (process.argv[2] === '--build' && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `npm ci` runs this as `prepare`; failing here would fail the install, and the CLI still runs through tsx.
  try {
    mkdirSync(CACHE, { recursive: true });
    const entry = await buildBundle();
    process.stdout.write(`karpless: CLI bundled into ${relative(ROOT, entry)}\n`);
  } catch (err) {
    process.stderr.write(
      `karpless: CLI not bundled, it will run through tsx (${err instanceof Error ? err.message : err})\n`,
    );
  }
}
