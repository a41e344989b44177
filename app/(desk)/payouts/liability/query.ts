import { z } from "zod";
import { readParam } from "@/lib/table-state";
import { parseInstant } from "@/lib/time";

/**
 * The liability page's query: the day it is as of and the page of its table. Anything typed into the address bar is
 * accepted: a day that is not a date falls back to today (and says so), a page that is not one to the first, a page
 * past the end to the last.
 */
export const LIABILITY_PAGE_SIZE = 50;

export const liabilityQuerySchema = z.object({
  asOf: z
    .string()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { abort: true })
    .refine((day) => parseInstant(day) !== null)
    .nullable()
    .optional()
    .catch(null),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
});

export type LiabilityQuery = z.output<typeof liabilityQuerySchema>;

/** `asOf` null: one was typed and it is not a day; undefined: none was given. */
export function parseLiabilityQuery(params: Record<string, string | string[] | undefined>): LiabilityQuery {
  return liabilityQuerySchema.parse({ asOf: readParam(params, "asOf"), page: readParam(params, "page") ?? 1 });
}

/** The address of one page of the table as of a day. */
export function liabilityHref(asOfDay: string, page: number): string {
  const search = new URLSearchParams({ asOf: asOfDay });
  if (page > 1) search.set("page", String(page));
  return `/payouts/liability?${search.toString()}`;
}
