// The repository's own text files, as git tracks them: what the docs checks read. Vendored and installed code
// (node_modules) is not the project's text and is left out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface TextFile {
  /** Path from the repository root, with forward slashes. */
  path: string;
  text: string;
}

/** Every tracked file's path, outside node_modules. */
export function trackedPaths(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  return listed.split('\0').filter((p) => p !== '' && !p.split('/').includes('node_modules'));
}

/** Tracked files whose names end with one of `extensions` (without the dot), outside node_modules. */
export function trackedFiles(extensions: readonly string[]): TextFile[] {
  return trackedPaths()
    .filter((p) => extensions.some((e) => p.endsWith(`.${e}`)))
    .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}
