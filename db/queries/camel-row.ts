/** `snake_case` column names in the app's camelCase: `window_start` → `windowStart`. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

export type CamelRow<R> = { [K in keyof R as K extends string ? Camel<K> : K]: R[K] };

/** camelCase names as `snake_case` columns: `windowStart` → `window_start`. */
type Snake<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${Snake<Tail>}`
  : S;

export type SnakeRow<R> = { [K in keyof R as K extends string ? Snake<K> : K]: R[K] };

/** A row read from the database with its columns renamed to camelCase, in the order they were selected. */
export function camelRow<R extends object>(row: R): CamelRow<R> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    out[column.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase())] = value;
  }
  return out as CamelRow<R>;
}

/** A row to write, from the app's camelCase names to its `snake_case` columns (the inverse of camelRow). */
export function snakeRow<R extends object>(row: R): SnakeRow<R> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) out[name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = value;
  return out as SnakeRow<R>;
}
