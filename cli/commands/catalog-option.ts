// `--catalog FILE` for any command: the instance-type catalog to use instead of the embedded us-east-1 snapshot.
import { readInputFile } from '../../shared/api/input-file';
import { DEFAULT_INPUT_LIMITS } from '../../shared/api/limits';
import { type Catalog, embeddedSnapshot, parseCatalogText } from '../../shared/catalog';

/**
 * The catalog a command should use; a bad file throws a ValidationError naming the file and field (exit 2). The file
 * is read with the input checks every CLI input gets (a folder, a named pipe, binary data, the size cap).
 */
export async function resolveCatalog(opts: { catalog?: string }, onWait?: (line: string) => void): Promise<Catalog> {
  if (!opts.catalog) return embeddedSnapshot();
  const text = await readInputFile(opts.catalog, {
    expected: 'a catalog JSON file (from karpless catalog refresh)',
    maxBytes: DEFAULT_INPUT_LIMITS.maxFileBytes,
    ...(onWait ? { onWait } : {}),
  });
  return parseCatalogText(text, opts.catalog);
}
