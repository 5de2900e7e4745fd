// The layer rules of docs/architecture.md ("Layers") as a checker over source files: which folder may import which,
// which modules may use an SDK, and how long a hand-written file may grow. layers.test.ts runs it on the repository
// and, on small synthetic file sets, proves that every rule can fail.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

export interface SourceFile {
  /** Repository-relative, with forward slashes. */
  path: string;
  text: string;
}

export type Rule =
  | 'shared-imports-up'
  | 'handler-imports-handler'
  | 'production-imports-test'
  | 'engine-imports-sdk'
  | 'file-too-long';

export interface Violation {
  rule: Rule;
  file: string;
  /** The import specifier, or the line count for file-too-long. */
  detail: string;
}

export interface LayerOptions {
  maxLines: number;
  /** Files the length rule skips, each with the reason (generated or data). */
  longFileExemptions: Readonly<Record<string, string>>;
}

/** Folders the pure engine must never reach: the deployables, the harnesses and the test builders. */
const ABOVE_SHARED = ['functions', 'forwarder', 'local', 'cli', 'bench', 'stacks', 'testkit'];

/** Folders under functions/ that every handler shares; every other folder is one deployed handler. */
const SHARED_FUNCTION_FOLDERS = new Set(['_wiring', 'middleware']);

/** The pure engine: no AWS, Kubernetes or Powertools SDK (docs/architecture.md, "Layers"). */
const ENGINE = [
  'shared/api/',
  'shared/catalog/',
  'shared/scheduling/',
  'shared/disruption/',
  'shared/controllers/',
  'shared/sim/',
  'shared/events/',
  'shared/errors.ts',
  'shared/ports.ts',
];
const SDK = /^(@aws-sdk\/|@smithy\/|@kubernetes\/client-node(\/|$)|@aws-lambda-powertools\/)/;

/**
 * Test support: tests, the builders and beds in testkit/, the suites, fakes and emulators in test/, and the stacks'
 * test helpers (stacks/testing/, loaded by path from the stack tests: a stub entry and the bundle probes).
 */
export function isTestSupport(path: string): boolean {
  return (
    path.endsWith('.test.ts') ||
    path.startsWith('testkit/') ||
    path.startsWith('test/') ||
    path.startsWith('stacks/testing/')
  );
}

/** The module specifiers a file imports or re-exports, static or dynamic. */
export function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** A relative specifier resolved against its file (repository-relative, no extension guessing); bare ones as is. */
function resolve(from: string, spec: string): string {
  return spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(from), spec)) : spec;
}

const topFolder = (path: string): string => path.split('/')[0] ?? '';

/** The handler folder of a path under functions/, or undefined for shared function folders and root files. */
function handlerFolder(path: string): string | undefined {
  const [top, folder, ...rest] = path.split('/');
  if (top !== 'functions' || folder === undefined || rest.length === 0) return undefined;
  return SHARED_FUNCTION_FOLDERS.has(folder) ? undefined : folder;
}

const isEngine = (path: string): boolean => ENGINE.some((e) => (e.endsWith('/') ? path.startsWith(e) : path === e));

export function checkLayers(files: readonly SourceFile[], options: LayerOptions): Violation[] {
  const out: Violation[] = [];
  for (const { path, text } of files) {
    const test = isTestSupport(path);
    for (const spec of importsOf(text)) {
      const target = resolve(path, spec);
      const relativeImport = spec.startsWith('.');
      const top = relativeImport ? topFolder(target) : '';
      // shared/ tests may use testkit/ (that is what it is for), never the deployables or harnesses.
      if (path.startsWith('shared/') && relativeImport && ABOVE_SHARED.includes(top) && !(test && top === 'testkit')) {
        out.push({ rule: 'shared-imports-up', file: path, detail: spec });
      }
      // A test may drive two handlers together; production code of one handler never reaches into another's.
      const from = handlerFolder(path);
      const to = relativeImport ? handlerFolder(target) : undefined;
      if (!test && path.startsWith('functions/') && to !== undefined && to !== from) {
        out.push({ rule: 'handler-imports-handler', file: path, detail: spec });
      }
      // bench/ measures with the testkit builders and runs the forwarder against the fake Kubernetes API (the
      // emulator); nothing else outside the tests may use test support.
      const intoTestSupport = relativeImport && (top === 'testkit' || top === 'test' || /\.test(\.ts)?$/.test(target));
      const benchUse = path.startsWith('bench/') && (top === 'testkit' || target.startsWith('test/fake-kube-api/'));
      if (!test && intoTestSupport && !benchUse) {
        out.push({ rule: 'production-imports-test', file: path, detail: spec });
      }
      if (isEngine(path) && !relativeImport && SDK.test(spec)) {
        out.push({ rule: 'engine-imports-sdk', file: path, detail: spec });
      }
    }
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > options.maxLines && !(path in options.longFileExemptions)) {
      out.push({ rule: 'file-too-long', file: path, detail: String(lines) });
    }
  }
  return out;
}

const SKIPPED_FOLDERS = new Set(['node_modules', 'cdk.out', 'dist', 'coverage']);

/** Every .ts file of the repository (not declarations), skipping dependencies, build outputs and dot folders. */
export function repositoryFiles(root: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIPPED_FOLDERS.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        out.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
      }
    }
  };
  walk(root);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
