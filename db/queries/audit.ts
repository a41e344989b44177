import "server-only";
import { type Selectable, sql } from "kysely";
import type { Db, DbOrTrx } from "@/db";
import type { AuditLogTable } from "@/db/types";
import { type CamelRow, camelRow, snakeRow } from "./camel-row";
import { escapeLike } from "./like";
import { countRows } from "./paging";

export type AuditLineInsert = {
  actorId: string | null;
  actorEmail: string | null;
  via: string;
  action: string;
  gameId: string | null;
  target: string | null;
  idempotencyKey: string | null;
  outcome: string;
  detail: Record<string, unknown>;
};

/** Appends one line to the audit log (the table refuses updates and deletes). */
export async function insertAuditLine(db: DbOrTrx, line: AuditLineInsert): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({ ...snakeRow(line), detail: JSON.stringify(line.detail) })
    .execute();
}

const AUDIT_ROW_COLUMNS = [
  "id",
  "at",
  "actor_email",
  "action",
  "game_id",
  "target",
  "idempotency_key",
  "outcome",
] as const;

export type AuditRow = CamelRow<Pick<Selectable<AuditLogTable>, (typeof AUDIT_ROW_COLUMNS)[number]>>;

export async function listAuditEntries(db: Db, options: { limit: number; gameId?: string }): Promise<AuditRow[]> {
  let query = db.selectFrom("audit_log").select(AUDIT_ROW_COLUMNS).orderBy("id", "desc").limit(options.limit);
  if (options.gameId) query = query.where("game_id", "=", options.gameId);
  const rows = await query.execute();
  return rows.map(camelRow);
}

/**
 * Who an audit line says acted, for a person reading it: the person's email; for a command run on a server with no
 * person to act as, "command line" and the system account it ran from; otherwise Payout Desk itself, "system".
 */
export function auditActorLabel(entry: { actorEmail: string | null; via: string; detail: Record<string, unknown> }) {
  if (entry.actorEmail) return entry.actorEmail;
  if (entry.via !== "cli") return "system";
  return typeof entry.detail.ranBy === "string" ? `command line (${entry.detail.ranBy})` : "command line";
}

export type AuditFilter = {
  /** Exact action, or a family with a trailing dot ("refund." matches refund.request, refund.call, ...). */
  action?: string;
  /**
   * Part of the actor's email; "system" matches entries made by Payout Desk itself (no person, not a command), "command
   * line" those of commands run on a server (an operator's, with no person to act as, or acting as one).
   */
  actor?: string;
  gameId?: string;
  /** Part of the target (a subscription id, a game id, a setting key). */
  target?: string;
  outcome?: string;
  idempotencyKey?: string;
  /** [from, to) */
  from?: Date;
  to?: Date;
  /** Entries up to this id only: a list paged while new entries arrive keeps its pages (the log only grows). */
  upToId?: string;
};

export type AuditEntry = AuditRow & { actorId: string | null; via: string; detail: Record<string, unknown> };

const ENTRY_COLUMNS = [
  "id",
  "at",
  "actor_id",
  "actor_email",
  "via",
  "action",
  "game_id",
  "target",
  "idempotency_key",
  "outcome",
  "detail",
] as const;

function toAuditEntry(r: Pick<Selectable<AuditLogTable>, (typeof ENTRY_COLUMNS)[number]>): AuditEntry {
  return { ...camelRow(r), detail: r.detail ?? {} };
}

function likeContains(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** The audit log narrowed by the page's filters (the page and its CSV download share it). */
function filteredAuditLog(db: DbOrTrx, filter: AuditFilter) {
  let query = db.selectFrom("audit_log");
  if (filter.action) {
    query = filter.action.endsWith(".")
      ? query.where("action", "like", `${escapeLike(filter.action)}%`)
      : query.where("action", "=", filter.action);
  }
  if (filter.actor) {
    query =
      filter.actor.trim().toLowerCase() === "system"
        ? query.where("actor_email", "is", null).where("via", "<>", "cli")
        : filter.actor.trim().toLowerCase() === "command line"
          ? query.where("via", "=", "cli")
          : query.where("actor_email", "ilike", likeContains(filter.actor));
  }
  if (filter.gameId) query = query.where("game_id", "=", filter.gameId);
  if (filter.target) query = query.where("target", "ilike", likeContains(filter.target));
  if (filter.outcome) query = query.where("outcome", "=", filter.outcome);
  if (filter.idempotencyKey) query = query.where("idempotency_key", "=", filter.idempotencyKey);
  if (filter.from) query = query.where("at", ">=", filter.from);
  if (filter.to) query = query.where("at", "<", filter.to);
  if (filter.upToId) query = query.where("id", "<=", filter.upToId);
  return query;
}

/**
 * One page of the audit log, newest first, with the number of entries matching the filter. The pages are of the log
 * as it stood at `upToId` (its newest matching entry when not given), so that paging on while new entries arrive
 * neither repeats nor skips one; `newer` counts the matching entries written since.
 */
export async function searchAuditEntries(
  db: Db,
  filter: AuditFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: AuditEntry[]; total: number; upToId: string | null; newer: number }> {
  const newest = async () =>
    (
      await filteredAuditLog(db, { ...filter, upToId: undefined })
        .select((eb) => eb.fn.max("id").as("id"))
        .executeTakeFirst()
    )?.id ?? null;
  const upToId = filter.upToId ?? (await newest());
  if (upToId === null) return { rows: [], total: 0, upToId: null, newer: 0 };
  const query = filteredAuditLog(db, { ...filter, upToId });
  const [rows, total, newer] = await Promise.all([
    query.select(ENTRY_COLUMNS).orderBy("id", "desc").offset(page.offset).limit(page.limit).execute(),
    countRows(query),
    filter.upToId ? countRows(filteredAuditLog(db, { ...filter, upToId: undefined }).where("id", ">", upToId)) : 0,
  ]);
  return { total, rows: rows.map(toAuditEntry), upToId, newer };
}

/** The values the filters offer: every action, outcome and game seen in the log. */
export async function listAuditFacets(db: Db): Promise<{ actions: string[]; outcomes: string[]; games: string[] }> {
  const [actions, outcomes, games] = await Promise.all([
    distinctValues(db, "action"),
    distinctValues(db, "outcome"),
    distinctValues(db, "game_id"),
  ]);
  return { actions, outcomes, games };
}

/**
 * The values a column of the log holds (nulls aside), in order, each found by one step along the column's index from
 * the one before: a few dozen index reads however long the log (reading every entry to list them took 369 ms a view
 * of a log of a million).
 */
async function distinctValues(db: Db, column: "action" | "outcome" | "game_id"): Promise<string[]> {
  const c = sql.ref(column);
  const { rows } = await sql<{ value: string | null }>`
    with recursive seen(value) as (
      (select ${c} from audit_log where ${c} is not null order by ${c} limit 1)
      union all
      select (select ${c} from audit_log where ${c} > seen.value order by ${c} limit 1) from seen
       where seen.value is not null)
    select value from seen where value is not null`.execute(db);
  return rows.flatMap((r) => (r.value === null ? [] : [r.value]));
}

/**
 * Where refund requests ended: a refund.request line is written "pending" before the service is called and the log is
 * append-only, so the page shows the attempt's status now beside it. Keyed by client_request_id (the line's
 * idempotency key), scoped to the line's game.
 */
export async function listRefundAttemptOutcomes(
  db: Db,
  keys: { gameId: string; clientRequestId: string }[],
): Promise<Map<string, { attemptId: string; status: string }>> {
  const out = new Map<string, { attemptId: string; status: string }>();
  if (keys.length === 0) return out;
  const rows = await db
    .selectFrom("refund_attempt")
    .select(["id", "game_id", "client_request_id", "status"])
    .where(
      "client_request_id",
      "in",
      keys.map((k) => k.clientRequestId),
    )
    .execute();
  const wanted = new Set(keys.map((k) => `${k.gameId}|${k.clientRequestId}`));
  for (const r of rows) {
    if (wanted.has(`${r.game_id}|${r.client_request_id}`))
      out.set(`${r.game_id}|${r.client_request_id}`, { attemptId: r.id, status: r.status });
  }
  return out;
}

/**
 * Entries matching the filter, newest first, after (older than) the entry id given: the audit CSV reads the whole
 * filtered log in pages of these, never by offset.
 */
export async function listAuditEntriesBefore(
  db: DbOrTrx,
  filter: AuditFilter,
  page: { beforeId: string | null; limit: number },
): Promise<AuditEntry[]> {
  let query = filteredAuditLog(db, filter);
  if (page.beforeId !== null) query = query.where("id", "<", page.beforeId);
  const rows = await query.select(ENTRY_COLUMNS).orderBy("id", "desc").limit(page.limit).execute();
  return rows.map(toAuditEntry);
}
