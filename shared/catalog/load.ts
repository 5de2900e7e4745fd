// Where catalogs come from: the embedded us-east-1 snapshot, or a JSON file (for example from `catalog refresh`).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ValidationError } from '../errors';
import type { Catalog } from './types';
import { validateCatalog } from './validate';

export const EMBEDDED_CATALOG_NAME = 'embedded us-east-1 snapshot';
/**
 * The snapshot is read as a file beside this module, not imported: inlined, it was 360 KiB of every Lambda bundle,
 * parsed at each cold start even by functions that never plan. In a Lambda bundle "this module" is index.mjs, and
 * the stack copies the file to data/ beside it (stacks/bundling.ts).
 */
export const EMBEDDED_CATALOG_PATH = fileURLToPath(new URL('./data/us-east-1.json', import.meta.url));
let cached: Catalog | undefined;

/** The embedded snapshot, read and validated once; the same object every call, so per-catalog caches stay warm. */
export function embeddedSnapshot(): Catalog {
  cached ??= validateCatalog(readJson(EMBEDDED_CATALOG_PATH), EMBEDDED_CATALOG_NAME);
  return cached;
}

/** Reads and validates a catalog file; errors name the file and the field path. */
export function readCatalogFile(path: string): Catalog {
  return validateCatalog(readJson(path), path);
}

/** Validates catalog text already read from `path` (the CLI reads it with its input checks). */
export function parseCatalogText(text: string, path: string): Catalog {
  return validateCatalog(parseJson(text, path), path);
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ValidationError([
      `${path}: cannot read the catalog file (${(err as NodeJS.ErrnoException).code ?? err})`,
    ]);
  }
  return parseJson(text, path);
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    // JSON.parse quotes the start of the text, new lines included; the error stays on one line.
    const reason = (err as Error).message.replace(/\s+/g, ' ');
    throw new ValidationError([`${path}: not valid JSON (${reason}); expected a catalog JSON file`]);
  }
}

/** The embedded snapshot when no path is given, else the file at `path`. */
export function loadCatalog(path?: string): Catalog {
  return path ? readCatalogFile(path) : embeddedSnapshot();
}
