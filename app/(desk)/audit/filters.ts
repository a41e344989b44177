import { z } from "zod";
import type { AuditFilter } from "@/db/queries/audit";
import { readParam, withoutControls } from "@/lib/table-state";
import { parseInstant } from "@/lib/time";

/**
 * The audit page's filters, read from the URL. Anything typed into the address bar is accepted: a value that does not
 * parse is dropped (and reported), never an error page.
 */
export const AUDIT_PAGE_SIZE = 50;

const text = (max: number) =>
  z
    .unknown()
    .transform((value) => (typeof value === "string" ? withoutControls(value).trim().slice(0, max) : ""))
    .transform((value) => value || undefined);

const instant = z.unknown().transform((value) => {
  if (typeof value !== "string" || value.trim() === "") return { text: undefined, ms: undefined, invalid: false };
  const ms = parseInstant(value.trim());
  return { text: value.trim(), ms: ms ?? undefined, invalid: ms === null };
});

export const auditFilterSchema = z.object({
  action: text(100),
  actor: text(254),
  game: text(100),
  target: text(200),
  outcome: text(60),
  key: text(255),
  from: instant,
  to: instant,
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  // The newest entry of the list being paged (an audit line's id); anything else lists the log as it is now.
  upTo: z
    .unknown()
    .transform((value) => (typeof value === "string" && /^[1-9]\d{0,17}$/.test(value) ? value : undefined)),
});

export type AuditFilterInput = z.output<typeof auditFilterSchema>;

export function parseAuditFilter(params: Record<string, string | string[] | undefined>): AuditFilterInput {
  const one = (name: string) => readParam(params, name);
  return auditFilterSchema.parse({
    action: one("action"),
    actor: one("actor"),
    game: one("game"),
    target: one("target"),
    outcome: one("outcome"),
    key: one("key"),
    from: one("from"),
    to: one("to"),
    page: one("page") ?? 1,
    upTo: one("upTo"),
  });
}

/** The query string of a filter at another page (of the log as it stood at entry `upTo`, when given). */
export function auditHref(filter: AuditFilterInput, page: number, upTo?: string | null): string {
  const search = new URLSearchParams();
  for (const name of ["action", "actor", "game", "target", "outcome", "key"] as const) {
    const value = filter[name];
    if (value) search.set(name, value);
  }
  if (filter.from.text) search.set("from", filter.from.text);
  if (filter.to.text) search.set("to", filter.to.text);
  if (page > 1) search.set("page", String(page));
  if (upTo) search.set("upTo", upTo);
  const query = search.toString();
  return `/audit${query ? `?${query}` : ""}`;
}

/** The filter as the audit log's query takes it (the page and its CSV download read the same entries). */
export function auditQueryOf(filter: AuditFilterInput): AuditFilter {
  return {
    action: filter.action,
    actor: filter.actor,
    gameId: filter.game,
    target: filter.target,
    outcome: filter.outcome,
    idempotencyKey: filter.key,
    from: filter.from.ms !== undefined ? new Date(filter.from.ms) : undefined,
    to: filter.to.ms !== undefined ? new Date(filter.to.ms) : undefined,
    upToId: filter.upTo,
  };
}
