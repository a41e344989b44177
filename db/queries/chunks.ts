import "server-only";

/** Rows per statement: keeps every insert or `in (...)` list well under PostgreSQL's 65,535 bound parameters. */
export const CHUNK_SIZE = 1000;

/**
 * Runs `run` over `items` in chunks of `size` (one statement each), in order, and returns each chunk's result. Nothing
 * runs for an empty list.
 */
export async function inChunks<T, R>(
  items: readonly T[],
  run: (chunk: T[]) => Promise<R>,
  size: number = CHUNK_SIZE,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(await run(items.slice(i, i + size)));
  return out;
}
