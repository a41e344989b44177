import { z } from "zod";

/**
 * Table state that lives in the URL (sort, direction, page, page size, search, filters), parsed on the server and
 * written by the client table. Pure: used by server pages, query modules and the client data table alike.
 *
 * Anything a person can type into the address bar is accepted and clamped to something valid, never an error:
 * an unknown sort column falls back to the default, page 0 becomes page 1, a page size not offered becomes the
 * default, an over-long search is cut.
 */

export type SortDir = "asc" | "desc";

export type TableStateConfig<S extends string = string, F extends string = string> = {
  /** Column ids the server can sort by (each must be a column id of the table). */
  sortColumns: readonly S[];
  defaultSort: S;
  defaultDir?: SortDir;
  /** Page sizes offered in the page size select. */
  pageSizes?: readonly number[];
  defaultPageSize?: number;
  /** Filter name -> the values it accepts. The URL parameter is the filter name. */
  filters?: { readonly [K in F]: readonly string[] };
  maxQueryLength?: number;
};

export type TableState<S extends string = string, F extends string = string> = {
  page: number;
  pageSize: number;
  sort: S;
  dir: SortDir;
  q: string;
  filters: Partial<Record<F, string>>;
};

export type SearchParamsInput =
  | URLSearchParams
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

export const DEFAULT_PAGE_SIZES = [25, 50, 100] as const;
export const MAX_PAGE = 1_000_000;
export const RESERVED_PARAMS = ["page", "pageSize", "sort", "dir", "q"] as const;

/**
 * Typed text without control characters (NUL, which PostgreSQL refuses in text, line breaks, tabs): what a search
 * box or the address bar may carry, made safe to compare.
 */
export function withoutControls(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  return value.replace(/[\u0000-\u001f\u007f]/g, " ");
}

function includes<T extends string>(values: readonly T[], value: string | undefined): value is T {
  return value !== undefined && (values as readonly string[]).includes(value);
}

/** One search parameter as text: the first of a repeated one, undefined when absent. */
export function readParam(input: SearchParamsInput, name: string): string | undefined {
  if (typeof input.get === "function") return (input as { get(name: string): string | null }).get(name) ?? undefined;
  const value = (input as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A page number from the address bar for a page that pages on its own: a whole number from 1 to `max`, anything else
 * (1.5, -3, "two", a repeated parameter's later values) clamped or page 1.
 */
export function pageParam(input: SearchParamsInput, max: number): number {
  const page = z.coerce
    .number()
    .int()
    .catch(1)
    .parse(readParam(input, "page") ?? "1");
  return Math.max(1, Math.min(max, page));
}

export type TableStateDefinition<S extends string, F extends string> = {
  config: Required<Omit<TableStateConfig<S, F>, "filters">> & { filters: { readonly [K in F]: readonly string[] } };
  schema: z.ZodType<TableState<S, F>>;
  defaults: TableState<S, F>;
  /** Parses `searchParams` (the awaited page prop, URLSearchParams, or useSearchParams()) into a valid state. */
  parse(input: SearchParamsInput): TableState<S, F>;
  /** The query string for a state, leaving out every value that equals its default. */
  serialize(state: TableState<S, F>): URLSearchParams;
};

export function defineTableState<S extends string, F extends string = never>(
  input: TableStateConfig<S, F>,
): TableStateDefinition<S, F> {
  const pageSizes = input.pageSizes ?? DEFAULT_PAGE_SIZES;
  const config = {
    sortColumns: input.sortColumns,
    defaultSort: input.defaultSort,
    defaultDir: input.defaultDir ?? "asc",
    pageSizes,
    defaultPageSize: input.defaultPageSize ?? pageSizes[0] ?? 50,
    filters: input.filters ?? ({} as { readonly [K in F]: readonly string[] }),
    maxQueryLength: input.maxQueryLength ?? 200,
  };
  if (!config.sortColumns.includes(config.defaultSort))
    throw new Error(`defaultSort "${config.defaultSort}" is not a sort column`);
  if (!pageSizes.includes(config.defaultPageSize))
    throw new Error(`defaultPageSize ${config.defaultPageSize} is not offered`);
  const filterNames = Object.keys(config.filters) as F[];
  for (const name of filterNames) {
    if ((RESERVED_PARAMS as readonly string[]).includes(name)) throw new Error(`filter name "${name}" is reserved`);
  }

  const filterShape = Object.fromEntries(
    filterNames.map((name) => [
      name,
      z
        .unknown()
        .transform((value) => (typeof value === "string" && includes(config.filters[name], value) ? value : undefined)),
    ]),
  );

  const schema = z
    .object({
      page: z.coerce
        .number()
        .int()
        .catch(1)
        .transform((n) => Math.min(Math.max(n, 1), MAX_PAGE)),
      pageSize: z.coerce
        .number()
        .int()
        .catch(config.defaultPageSize)
        .transform((n) => (pageSizes.includes(n) ? n : config.defaultPageSize)),
      sort: z
        .unknown()
        .transform(
          (value): S => (typeof value === "string" && includes(config.sortColumns, value) ? value : config.defaultSort),
        ),
      dir: z.enum(["asc", "desc"]).catch(config.defaultDir),
      q: z
        .unknown()
        .transform((value) =>
          typeof value === "string" ? withoutControls(value).trim().slice(0, config.maxQueryLength) : "",
        ),
      filters: z.object(filterShape).catch({}),
    })
    .transform(
      (state): TableState<S, F> => ({
        ...state,
        filters: Object.fromEntries(
          Object.entries(state.filters).filter(([, value]) => value !== undefined),
        ) as Partial<Record<F, string>>,
      }),
    );

  const defaults: TableState<S, F> = {
    page: 1,
    pageSize: config.defaultPageSize,
    sort: config.defaultSort,
    dir: config.defaultDir,
    q: "",
    filters: {},
  };

  function parse(params: SearchParamsInput): TableState<S, F> {
    const raw = {
      page: readParam(params, "page"),
      pageSize: readParam(params, "pageSize"),
      sort: readParam(params, "sort"),
      dir: readParam(params, "dir"),
      q: readParam(params, "q"),
      filters: Object.fromEntries(filterNames.map((name) => [name, readParam(params, name)])),
    };
    return schema.parse(raw);
  }

  function serialize(state: TableState<S, F>): URLSearchParams {
    const out = new URLSearchParams();
    if (state.sort !== defaults.sort || state.dir !== defaults.dir) {
      out.set("sort", state.sort);
      out.set("dir", state.dir);
    }
    for (const name of filterNames) {
      const value = state.filters[name];
      if (value !== undefined) out.set(name, value);
    }
    if (state.q !== "") out.set("q", state.q);
    if (state.pageSize !== defaults.pageSize) out.set("pageSize", String(state.pageSize));
    if (state.page !== 1) out.set("page", String(state.page));
    return out;
  }

  return { config, schema, defaults, parse, serialize };
}

/** Rows to skip for the state's page (SQL OFFSET). */
export function pageOffset(state: Pick<TableState, "page" | "pageSize">): number {
  return (state.page - 1) * state.pageSize;
}

/** Number of pages for `total` rows; at least 1, so "page 1 of 1" reads right for an empty table. */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** True when the state asks for narrower rows than the whole table (a search or any filter). */
export function isNarrowed(state: Pick<TableState, "q" | "filters">): boolean {
  return state.q !== "" || Object.values(state.filters).some((value) => value !== undefined);
}
