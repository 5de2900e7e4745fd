// The layer rules of docs/architecture.md ("Layers") as a checker over source files: the rank of every layer and
// which folder may import which, what the shipped entry points may reach, which folders are modules entered through
// their index.ts, which modules may use an SDK, and how long a hand-written file or function may grow. layers.test.ts
// runs it on the repository and, on small synthetic file sets, proves that every rule can fail.
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
  | 'imports-up'
  | 'import-not-allowed'
  | 'shipped-reaches-test'
  | 'imports-module-internals'
  | 'handler-imports-handler'
  | 'production-imports-test'
  | 'engine-imports-sdk'
  | 'file-too-long'
  | 'function-too-long';

export interface Violation {
  rule: Rule;
  file: string;
  /** The import specifier; the line count for file-too-long; `name lines` for function-too-long; the import chain
   * from the entry point for shipped-reaches-test. */
  detail: string;
}

export interface LayerOptions {
  maxLines: number;
  /** Files the length rule skips, each with the reason (generated or data). */
  longFileExemptions: Readonly<Record<string, string>>;
  maxFunctionLines: number;
  /** Functions the length rule skips, keyed `path#name` (see functionsOf), each with the reason. */
  longFunctionExemptions: Readonly<Record<string, string>>;
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
  'shared/metrics.ts',
  'shared/messages.ts',
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

/**
 * The layers, lowest first (docs/architecture.md, "Layers"). A group is a folder of shared/, a root file of shared/
 * or a top-level folder. A production file may import a group of a lower rank only: never a higher rank, and never
 * another group of its own rank. Test support and folders not listed (examples, events fixtures) are not ranked.
 */
export const RANKS: readonly (readonly string[])[] = [
  ['shared/errors.ts', 'shared/metrics.ts'],
  ['shared/api'],
  ['shared/catalog'],
  ['shared/scheduling'],
  ['shared/disruption'],
  ['shared/ports.ts', 'shared/messages.ts'],
  ['shared/events'],
  ['shared/controllers'],
  ['shared/aws', 'shared/kube'],
  ['shared/sim'],
  ['functions', 'forwarder', 'stacks'],
  ['local'],
  ['cli'],
  ['bench'],
];

/** The vocabulary every layer speaks: the leaves, the object types and the catalog, the ports and the messages. */
const VOCABULARY = [
  'shared/errors.ts',
  'shared/metrics.ts',
  'shared/api',
  'shared/catalog',
  'shared/ports.ts',
  'shared/messages.ts',
];

/**
 * Narrower than the ranks: the groups of shared/ these groups may import (besides their own). The adapters implement
 * ports and know no use-case or decision; the simulator stands in for the adapters and never imports one; the
 * forwarder's image carries only the object types and the messages; the CDK app reads names and settings, never a
 * use-case or the simulator.
 */
export const ALLOWED_SHARED_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  'shared/aws': VOCABULARY,
  'shared/kube': VOCABULARY,
  'shared/sim': [...VOCABULARY, 'shared/scheduling', 'shared/disruption', 'shared/events', 'shared/controllers'],
  forwarder: ['shared/api', 'shared/messages.ts'],
  stacks: [...VOCABULARY, 'shared/disruption', 'shared/events', 'shared/aws'],
};

/**
 * Folders of shared/ whose files are each public: the vocabularies (shared/api, shared/catalog), whose consumers take
 * one file each (the forwarder's image carries shared/api/pending.ts without the parsers and CRDs), and the AWS
 * adapter, whose files are each an entry the wiring picks so a handler's bundle carries only its own clients. Every
 * other folder of shared/ with an index.ts, and every folder with an index.ts inside these, is a module: a file
 * outside it imports only its index.ts (or an entry listed in MODULE_ENTRIES); a module inside a module is entered
 * through its own index.ts.
 */
export const OPEN_FOLDERS = ['shared/api', 'shared/catalog', 'shared/aws'];

/**
 * Entries a module offers besides its index.ts, each a heavier part the index leaves out so that importing the module
 * does not load it: the simulator's catalog-backed engine (the embedded catalog and the solver) and its assembled
 * world (every use-case).
 */
export const MODULE_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  'shared/sim': ['shared/sim/default-engine.ts', 'shared/sim/world.ts'],
};

/** The shipped entry points: the CLI binary, each Lambda handler, the forwarder and the CDK app (cdk.json). */
export function isShippedEntry(path: string): boolean {
  return (
    path === 'cli/bin.mjs' ||
    path === 'forwarder/main.ts' ||
    path === 'stacks/app.ts' ||
    (/^functions\/[^/]+\/(handler|index)\.ts$/.test(path) && handlerFolder(path) !== undefined)
  );
}

/** A relative specifier resolved against its file (repository-relative, no extension guessing); bare ones as is. */
function resolve(from: string, spec: string): string {
  return spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(from), spec)) : spec;
}

/** The file a relative specifier names among `paths` (as TypeScript and Node resolve it), else the bare resolution. */
function resolveFile(from: string, spec: string, paths: ReadonlySet<string>): string {
  const base = resolve(from, spec);
  const candidates = [base, `${base}.ts`, base.replace(/\.m?js$/, '.ts'), `${base}.mjs`, `${base}/index.ts`];
  return candidates.find((c) => paths.has(c)) ?? base;
}

const topFolder = (path: string): string => path.split('/')[0] ?? '';

/** The rank group of a path: a folder of shared/, a root file of shared/, or a top-level folder. */
export function groupOf(path: string): string {
  const [top, second, third] = path.split('/');
  if (top !== 'shared' || second === undefined) return top ?? '';
  if (third !== undefined) return `shared/${second}`;
  // An import names a root file without its extension; a folder of shared/ is its own group.
  return RANKS.some((r) => r.includes(`${path}.ts`)) ? `${path}.ts` : path;
}

const rankOf = (group: string): number => RANKS.findIndex((r) => r.includes(group));

/** The handler folder of a path under functions/, or undefined for shared function folders and root files. */
function handlerFolder(path: string): string | undefined {
  const [top, folder, ...rest] = path.split('/');
  if (top !== 'functions' || folder === undefined || rest.length === 0) return undefined;
  return SHARED_FUNCTION_FOLDERS.has(folder) ? undefined : folder;
}

const isEngine = (path: string): boolean => ENGINE.some((e) => (e.endsWith('/') ? path.startsWith(e) : path === e));

/** The innermost module (folder with an index.ts, not open) that holds `target` but not `from`, if any. */
function moduleEntered(from: string, target: string, paths: ReadonlySet<string>): string | undefined {
  if (!target.startsWith('shared/')) return undefined;
  const parts = target.split('/');
  for (let i = parts.length - 1; i >= 2; i--) {
    const folder = parts.slice(0, i).join('/');
    if (from.startsWith(`${folder}/`)) return undefined;
    if (!OPEN_FOLDERS.includes(folder) && paths.has(`${folder}/index.ts`)) return folder;
  }
  return undefined;
}

/** Whether `target` is an entry of `module` a file outside it may import: its index.ts or a listed entry. */
const isModuleEntry = (module: string, target: string): boolean =>
  target === `${module}/index.ts` || (MODULE_ENTRIES[module] ?? []).includes(target);

interface Edge {
  path: string;
  spec: string;
  /** The resolved target: a repository file, or the bare specifier. */
  target: string;
  relativeImport: boolean;
  test: boolean;
}

/** The rules that look at one import at a time. */
function importViolations(e: Edge, paths: ReadonlySet<string>): Violation[] {
  const out: Violation[] = [];
  const { path, spec, target, relativeImport, test } = e;
  const flag = (rule: Rule) => out.push({ rule, file: path, detail: spec });
  const top = relativeImport ? topFolder(target) : '';
  // shared/ tests may use testkit/ (that is what it is for), never the deployables or harnesses.
  if (path.startsWith('shared/') && relativeImport && ABOVE_SHARED.includes(top) && !(test && top === 'testkit')) {
    flag('shared-imports-up');
  }
  // A test may drive two handlers together; production code of one handler never reaches into another's.
  const to = relativeImport ? handlerFolder(target) : undefined;
  if (!test && path.startsWith('functions/') && to !== undefined && to !== handlerFolder(path)) {
    flag('handler-imports-handler');
  }
  // bench/ measures with the testkit builders and runs the forwarder against the fake Kubernetes API (the
  // emulator); nothing else outside the tests may use test support.
  const intoTestSupport = relativeImport && (top === 'testkit' || top === 'test' || /\.test(\.ts)?$/.test(target));
  const benchUse = path.startsWith('bench/') && (top === 'testkit' || target.startsWith('test/fake-kube-api/'));
  if (!test && intoTestSupport && !benchUse) flag('production-imports-test');
  if (isEngine(path) && !relativeImport && SDK.test(spec)) flag('engine-imports-sdk');
  if (test || !relativeImport) return out;
  const from = groupOf(path);
  const into = groupOf(target);
  if (from !== into && rankOf(from) >= 0 && rankOf(into) >= 0 && rankOf(into) >= rankOf(from)) flag('imports-up');
  const allowed = ALLOWED_SHARED_IMPORTS[from];
  if (allowed && from !== into && into.startsWith('shared/') && !allowed.includes(into)) flag('import-not-allowed');
  const module = moduleEntered(path, target, paths);
  if (module !== undefined && !isModuleEntry(module, target)) flag('imports-module-internals');
  return out;
}

export function checkLayers(files: readonly SourceFile[], options: LayerOptions): Violation[] {
  const paths = new Set(files.map((f) => f.path));
  const out: Violation[] = [];
  for (const { path, text } of files) {
    const test = isTestSupport(path);
    for (const spec of importsOf(text)) {
      const relativeImport = spec.startsWith('.');
      const target = relativeImport ? resolveFile(path, spec, paths) : spec;
      out.push(...importViolations({ path, spec, target, relativeImport, test }, paths));
    }
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > options.maxLines && !(path in options.longFileExemptions)) {
      out.push({ rule: 'file-too-long', file: path, detail: String(lines) });
    }
    if (!test) out.push(...longFunctions({ path, text }, options));
  }
  out.push(...shippedTestSupport(files, paths));
  return out;
}

/** Every file a shipped entry point reaches through relative imports (static, dynamic, re-exports) that is test
 * support, reported once per entry with the chain that reaches it. */
function shippedTestSupport(files: readonly SourceFile[], paths: ReadonlySet<string>): Violation[] {
  const byPath = new Map(files.map((f) => [f.path, f.text]));
  const out: Violation[] = [];
  for (const entry of files.map((f) => f.path).filter(isShippedEntry)) {
    const via = new Map<string, string | undefined>([[entry, undefined]]);
    const queue = [entry];
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      if (isTestSupport(path)) {
        const chain: string[] = [];
        for (let p: string | undefined = path; p !== undefined; p = via.get(p)) chain.unshift(p);
        out.push({ rule: 'shipped-reaches-test', file: entry, detail: chain.join(' -> ') });
        continue;
      }
      for (const spec of importsOf(byPath.get(path) ?? '')) {
        if (!spec.startsWith('.')) continue;
        const target = resolveFile(path, spec, paths);
        if (!paths.has(target) || via.has(target)) continue;
        via.set(target, path);
        queue.push(target);
      }
    }
  }
  return out;
}

export interface FunctionSpan {
  /** `name`, `Class.method` or `outer.inner` for a function inside a named function. */
  name: string;
  lines: number;
}

/** The name a function node is known by: its own, the variable or property it is assigned to, or undefined. */
function functionName(node: ts.Node): string | undefined {
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  ) {
    return node.name?.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
      return parent.name.getText();
    }
  }
  return undefined;
}

/** Every named function of a file (declarations, methods, constructors, accessors, and arrow functions or function
 * expressions assigned to a name) with its length in lines, first line to last. */
export function functionsOf(path: string, text: string): FunctionSpan[] {
  const kind = path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node, scope: string[]) => {
    const name = functionName(node);
    const inner = ts.isClassLike(node) && node.name ? [...scope, node.name.getText()] : scope;
    if (name !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ name: [...scope, name].join('.'), lines: last - first + 1 });
      ts.forEachChild(node, (child) => visit(child, [...scope, name]));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return out;
}

function longFunctions(file: SourceFile, options: LayerOptions): Violation[] {
  return functionsOf(file.path, file.text)
    .filter((f) => f.lines > options.maxFunctionLines && !(`${file.path}#${f.name}` in options.longFunctionExemptions))
    .map((f) => ({ rule: 'function-too-long', file: file.path, detail: `${f.name} ${f.lines}` }));
}

const SKIPPED_FOLDERS = new Set(['node_modules', 'cdk.out', 'dist', 'coverage']);

/** Every .ts and .mjs file of the repository (not declarations), skipping dependencies, build outputs and dot folders. */
export function repositoryFiles(root: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIPPED_FOLDERS.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if ((entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) || entry.name.endsWith('.mjs')) {
        out.push({ path: relative(root, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
      }
    }
  };
  walk(root);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
