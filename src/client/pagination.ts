// Walks a cursor-paged list to its end, one page at a time.

interface Page<T> {
  items: T[];
  /** The cursor of the next page, or undefined when this was the last one. */
  next?: string;
}

/** Yields every item of every page; stops if the platform hands back a cursor it already gave. */
export async function* walkPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (!page.next || seen.has(page.next)) return;
    seen.add(page.next);
    cursor = page.next;
  }
}
