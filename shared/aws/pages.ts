// Token pagination for AWS list calls: one loop that follows `NextToken`, built on a fresh input per page
// (the SDK's paginators mutate one input object across pages).

/** Fetches pages until one comes back without a `NextToken` (an empty token ends too); returns the page count. */
export async function eachPage<Page extends { NextToken?: string }>(
  fetch: (token: string | undefined) => Promise<Page>,
  onPage: (page: Page) => void,
): Promise<number> {
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await fetch(token);
    onPage(page);
    token = page.NextToken || undefined;
    pages++;
  } while (token);
  return pages;
}
