// Lists a collection page by page (limit/continue) and trims each page before fetching the next, so peak memory is
// one raw page plus the trimmed results rather than the whole raw collection.

export interface RawPage {
  items?: unknown[];
  metadata?: { _continue?: string; continue?: string };
}

export async function listAllPages<T>(
  fetchPage: (continueToken: string | undefined) => Promise<RawPage>,
  trim: (item: unknown) => T,
  keep: (item: T) => boolean = () => true,
): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  do {
    const page = await fetchPage(token);
    for (const item of page.items ?? []) {
      const trimmed = trim(item);
      if (keep(trimmed)) out.push(trimmed);
    }
    token = page.metadata?._continue ?? page.metadata?.continue ?? undefined;
  } while (token);
  return out;
}
