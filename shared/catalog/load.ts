// Where catalogs come from: the embedded us-east-1 snapshot, or a JSON file (for example from `catalog refresh`).
import { readFileSync } from 'node:fs';
import { ValidationError } from '../errors';
import embedded from './data/us-east-1.json' with { type: 'json' };
import type { Catalog } from './types';
import { validateCatalog } from './validate';

export const EMBEDDED_CATALOG_NAME = 'embedded us-east-1 snapshot';
let cached: Catalog | undefined;

/** The embedded snapshot, validated once; the same object every call, so per-catalog caches stay warm. */
export function embeddedSnapshot(): Catalog {
  cached ??= validateCatalog(embedded, EMBEDDED_CATALOG_NAME);
  return cached;
}

/** Reads and validates a catalog file; errors name the file and the field path. */
export function readCatalogFile(path: string): Catalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ValidationError([
      `${path}: cannot read the catalog file (${(err as NodeJS.ErrnoException).code ?? err})`,
    ]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ValidationError([`${path}: not valid JSON (${(err as Error).message})`]);
  }
  return validateCatalog(data, path);
}

/** The embedded snapshot when no path is given, else the file at `path`. */
export function loadCatalog(path?: string): Catalog {
  return path ? readCatalogFile(path) : embeddedSnapshot();
}
