import "server-only";

/**
 * Reads a large result in pages ordered by a unique key ("after the last key seen", never OFFSET), asking for
 * the next page while the caller is still writing the current one. Only two pages are ever held.
 */
export async function* keysetPages<R>(
  fetchPage: (after: string | null) => Promise<R[]>,
  keyOf: (row: R) => string,
  pageSize: number,
): AsyncGenerator<R[], void, undefined> {
  // A prefetched page may fail while nobody awaits it yet: it is marked handled here and its error surfaces
  // when the loop awaits it, instead of as an unhandled rejection that would take the process down.
  const prefetch = (after: string | null): Promise<R[]> => {
    const promise = fetchPage(after);
    promise.catch(() => undefined);
    return promise;
  };
  let pending: Promise<R[]> | null = prefetch(null);
  try {
    while (pending) {
      const page: R[] = await pending;
      pending = null;
      const last = page[page.length - 1];
      if (page.length >= pageSize && last !== undefined) pending = prefetch(keyOf(last));
      if (page.length > 0) yield page;
    }
  } finally {
    // A page still in flight when the reader stops is awaited so that its connection goes back to the pool.
    if (pending) await pending.catch(() => undefined);
  }
}
