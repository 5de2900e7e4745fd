// Entry points for reading manifests: from text, or from files and folders.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../errors';
import { type BuildResult, buildManifestSet } from './build';
import { readDocuments, type SourceDocument } from './documents';
import { checkText, readInputFile } from './input-file';
import { DEFAULT_INPUT_LIMITS, type InputLimits, mib } from './limits';
import type { ManifestSet } from './manifest-set';

/** Parses multi-document YAML text; throws ValidationError listing every problem. */
export function parseManifests(text: string, file: string, limits: InputLimits = DEFAULT_INPUT_LIMITS): ManifestSet {
  const errors: string[] = [];
  const { set } = buildManifestSet(readDocuments(text, file, errors, limits), errors, limits);
  if (errors.length > 0) throw new ValidationError(errors);
  set.warnings.push(...placeholderWarnings(text, file));
  return set;
}

const PLACEHOLDER = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/g;

/**
 * Getting-started YAML often carries shell placeholders such as `${CLUSTER_NAME}`; left unexpanded they are valid
 * strings that select nothing, so say so (once per name and file) instead of passing silently.
 */
export function placeholderWarnings(text: string, file: string): string[] {
  if (!text.includes('${')) return [];
  const lines = new Map<string, number>();
  text.split('\n').forEach((line, i) => {
    if (line.trimStart().startsWith('#')) return;
    for (const m of line.matchAll(PLACEHOLDER)) if (!lines.has(m[0])) lines.set(m[0], i + 1);
  });
  return [...lines].map(
    ([name, line]) => `${file}:${line}: ${name} is not expanded; substitute it first (for example with envsubst)`,
  );
}

/** The path that stands for standard input, as `kubectl apply -f -` has it. */
export const STDIN_PATH = '-';
const STDIN_NAME = '<stdin>';

/**
 * Where `-` reads from; the CLI passes standard input, tests pass text. It reads at most `maxBytes` and throws
 * ValidationError past them, so endless input is refused at the same cap as a file.
 */
export type ReadStdin = (maxBytes: number) => Promise<string>;

const noStdin: ReadStdin = () => Promise.reject(new Error('standard input is not available here'));

/** How the CLI is told that reading waits: a named pipe with no writer yet. */
export type OnWait = (line: string) => void;

const EXPECTED = 'YAML manifests (Kubernetes objects with apiVersion and kind)';

/**
 * Reads files, folders recursively (*.yaml and *.yml, in sorted order) and `-` (standard input); throws
 * ValidationError on problems.
 */
export async function loadManifests(
  paths: string[],
  limits: InputLimits = DEFAULT_INPUT_LIMITS,
  stdin: ReadStdin = noStdin,
  onWait?: OnWait,
): Promise<ManifestSet> {
  return (await loadDocuments(paths, limits, stdin, onWait)).set;
}

/** Like loadManifests, and also returns the converted documents in order (for `karpless migrate`). */
export async function loadDocuments(
  paths: string[],
  limits: InputLimits = DEFAULT_INPUT_LIMITS,
  stdin: ReadStdin = noStdin,
  onWait?: OnWait,
): Promise<BuildResult> {
  const errors: string[] = [];
  const { docs, placeholders } = await readSources(paths, limits, stdin, errors, onWait);
  const result = buildManifestSet(docs, errors, limits);
  if (errors.length > 0) throw new ValidationError(errors);
  result.set.warnings.push(...placeholders);
  return result;
}

/** The documents of files, folders and `-` as parsed, neither converted nor validated (for `migrate --check`, which
 * reads whole `kubectl get -o yaml` dumps); throws ValidationError on unreadable files and YAML errors. */
export async function readSourceDocuments(
  paths: string[],
  limits: InputLimits = DEFAULT_INPUT_LIMITS,
  stdin: ReadStdin = noStdin,
  onWait?: OnWait,
): Promise<SourceDocument[]> {
  const errors: string[] = [];
  const { docs } = await readSources(paths, limits, stdin, errors, onWait);
  if (errors.length > 0) throw new ValidationError(errors);
  return docs;
}

async function readSources(
  paths: string[],
  limits: InputLimits,
  stdin: ReadStdin,
  errors: string[],
  onWait?: OnWait,
): Promise<{ docs: SourceDocument[]; placeholders: string[] }> {
  const docs: SourceDocument[] = [];
  const placeholders: string[] = [];
  const read = (text: string, file: string, input: number): void => {
    docs.push(...fromInput(readDocuments(text, file, errors, limits), input));
    placeholders.push(...placeholderWarnings(text, file));
  };
  if (paths.filter((p) => p === STDIN_PATH).length > 1) errors.push('-: standard input can be read only once');
  else if (paths.includes(STDIN_PATH)) {
    try {
      const text = await stdin(limits.maxFileBytes);
      if (Buffer.byteLength(text) > limits.maxFileBytes) {
        errors.push(`${STDIN_NAME}: more than the limit of ${mib(limits.maxFileBytes)} per file; split it`);
      } else read(checkText(STDIN_NAME, text, { expected: EXPECTED }), STDIN_NAME, paths.indexOf(STDIN_PATH));
    } catch (err) {
      errors.push(...problemsOf(err, STDIN_NAME));
    }
  }
  for (const { file, input } of await expandPaths(paths, errors)) {
    try {
      const opts = { expected: EXPECTED, maxBytes: limits.maxFileBytes, ...waitOf(onWait) };
      read(await readInputFile(file, opts), file, input);
    } catch (err) {
      errors.push(...problemsOf(err, file));
    }
  }
  if (errors.length === 0 && docs.length === 0 && paths.length > 0) {
    errors.push(
      `${paths.map((p) => (p === STDIN_PATH ? STDIN_NAME : p)).join(', ')}: no objects read; expected ${EXPECTED}`,
    );
  }
  return { docs, placeholders };
}

/** Marks documents with the input they came from. */
function fromInput(docs: SourceDocument[], input: number): SourceDocument[] {
  for (const d of docs) d.input = input;
  return docs;
}

const waitOf = (onWait: OnWait | undefined) => (onWait ? { onWait } : {});

/** A ValidationError's lines as they are; anything else as one `cannot read` line. */
function problemsOf(err: unknown, name: string): string[] {
  if (err instanceof ValidationError) return err.problems;
  return [`${name}: cannot read: ${err instanceof Error ? err.message : String(err)}`];
}

const YAML_FILE = /\.ya?ml$/i;

/** The files of every path but `-`, each with the position of its path (a folder's files share it). */
async function expandPaths(paths: string[], errors: string[]): Promise<{ file: string; input: number }[]> {
  const files: { file: string; input: number }[] = [];
  for (const [input, path] of paths.entries()) {
    if (path === STDIN_PATH) continue;
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch {
      errors.push(`${path}: no such file or folder; expected ${EXPECTED}`);
      continue;
    }
    if (!info.isDirectory()) {
      files.push({ file: path, input });
      continue;
    }
    const found = await walk(path);
    if (found.length === 0) errors.push(`${path}: a folder without .yaml or .yml files; expected ${EXPECTED}`);
    for (const file of found) files.push({ file, input });
  }
  return files;
}

async function walk(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const out: string[] = [];
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(full)));
    else if (e.isFile() && YAML_FILE.test(e.name)) out.push(full);
  }
  return out;
}
