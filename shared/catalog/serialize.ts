// Catalog files: one line per instance type keeps them reviewable in diffs without bloating them.
import type { Catalog } from './types';

export function serializeCatalog(catalog: Catalog): string {
  const { types, ...head } = catalog;
  const headJson = JSON.stringify(head);
  const lines = types.map((t) => JSON.stringify(t));
  return `${headJson.slice(0, -1)},"types":[\n${lines.join(',\n')}\n]}\n`;
}
