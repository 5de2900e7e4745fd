// How messages name a catalog, so a "no instance type meets …" answer says which list was searched: "the embedded
// catalog (1345 types, us-east-1, snapshot 2026-07-20)". docs/catalog.md, "The embedded snapshot".
import type { Catalog } from './types';

/** The prefix of the embedded snapshot's `source` (shared/catalog/build/generate.ts writes it). */
export const EMBEDDED_SOURCE_PREFIX = 'karpless embedded snapshot';

export function isEmbeddedCatalog(catalog: Pick<Catalog, 'source'>): boolean {
  return catalog.source.startsWith(EMBEDDED_SOURCE_PREFIX);
}

export function describeCatalog(catalog: Pick<Catalog, 'source' | 'region' | 'generatedAt' | 'types'>): string {
  const which = isEmbeddedCatalog(catalog) ? 'the embedded catalog' : 'the catalog';
  return `${which} (${catalog.types.length} types, ${catalog.region}, snapshot ${catalog.generatedAt.slice(0, 10)})`;
}
