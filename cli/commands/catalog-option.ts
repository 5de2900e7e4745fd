// `--catalog FILE` for any command: the instance-type catalog to use instead of the embedded us-east-1 snapshot.
import { type Catalog, loadCatalog } from '../../shared/catalog';

/** The catalog a command should use; a bad file throws a ValidationError naming the file and field (exit 2). */
export function resolveCatalog(opts: { catalog?: string }): Catalog {
  return loadCatalog(opts.catalog);
}
