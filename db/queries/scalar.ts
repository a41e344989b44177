/** The value of `column` in the first row `query` finds, or null when it finds none (or the value is null). */
export async function firstValue<O, K extends keyof O>(
  query: { executeTakeFirst(): Promise<O | undefined> },
  column: K,
): Promise<O[K] | null> {
  const row = await query.executeTakeFirst();
  return row?.[column] ?? null;
}
