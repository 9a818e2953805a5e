// Walks a cursor-paged list to its end, one page at a time.

interface Page<T> {
  items: T[];
  /** The cursor of the next page, or undefined when this was the last one. */
  next?: string;
}

/** Yields every item of every page; stops if the platform hands back a cursor it already gave. */
export async function* walkPages<P, T>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  read: (page: P) => Page<T>,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = read(await fetchPage(cursor));
    yield* page.items;
    if (!page.next || seen.has(page.next)) return;
    seen.add(page.next);
    cursor = page.next;
  }
}

/** A GPU list page: `next_cursor`, while `has_more`. */
export const byNextCursor = <T>(page: { data: T[]; has_more?: boolean; next_cursor?: string }): Page<T> => ({
  items: page.data,
  next: page.has_more && page.next_cursor ? page.next_cursor : undefined,
});

/** A batch list page (OpenAI-style): after the `last_id`, while `has_more`. */
export const byLastId = <T>(page: { data: T[]; has_more?: boolean; last_id?: string | null }): Page<T> => ({
  items: page.data,
  next: page.has_more && page.last_id ? page.last_id : undefined,
});
