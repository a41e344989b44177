import "server-only";
import { type RawBuilder, type SqlBool, sql } from "kysely";
import type { Db } from "@/db";
import { formatUsd } from "@/core/money";
import type { TimeWindow } from "@/core/time";
import { recipientLinesQuery } from "./snapshot-recipients";
import { isLatestVersion } from "./snapshots";

/** Escapes LIKE wildcards in user text. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A recipient of the table aliased `alias` whose email or name starts with `q` (lower case), or whose id is `q`.
 */
export function matchesRecipient(alias: "r" | "st", q: string): RawBuilder<SqlBool> {
  const prefix = `${escapeLike(q)}%`;
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  const email = sql`lower(${column("player_email")}) like ${prefix}`;
  const byText = sql<SqlBool>`${email} or lower(${column("player_name")}) like ${prefix}`;
  return /^\d{1,15}$/.test(q)
    ? sql<SqlBool>`(${byText} or ${column("recipient_player_id")} = ${q})`
    : sql<SqlBool>`(${byText})`;
}

/** Reads of the recipient pages: top recipients, a recipient's windows, events and evidence, and recipient search. */

/** Top recipients by net attributed over the latest snapshot version of each given window. */
export async function listTopRecipients(
  db: Db,
  params: { gameId: string; windows: TimeWindow[]; limit?: number },
): Promise<
  {
    recipientPlayerId: number;
    playerName: string | null;
    playerEmail: string | null;
    netAttributedUsd: string;
    grossAttributedUsd: string;
    reversedAttributedUsd: string;
  }[]
> {
  if (params.windows.length === 0) return [];
  const latest = db
    .selectFrom("snapshot as s")
    .select("s.id")
    .where("s.game_id", "=", params.gameId)
    .where((eb) =>
      eb.or(
        params.windows.map((w) =>
          eb.and([eb("s.window_start", "=", new Date(w.startMs)), eb("s.window_end", "=", new Date(w.endMs))]),
        ),
      ),
    )
    .where(isLatestVersion("s"));
  const rows = await db
    .selectFrom("snapshot_recipient as r")
    .select([
      "r.recipient_player_id",
      sql<string | null>`max(r.player_name)`.as("name"),
      sql<string | null>`max(r.player_email)`.as("email"),
      sql<string>`sum(r.net_attributed_usd)::text`.as("net"),
      sql<string>`sum(r.gross_attributed_usd)::text`.as("gross"),
      sql<string>`sum(r.reversed_attributed_usd)::text`.as("reversed"),
    ])
    .where("r.snapshot_id", "in", latest)
    .groupBy("r.recipient_player_id")
    .orderBy(sql`sum(r.net_attributed_usd)`, "desc")
    .orderBy("r.recipient_player_id")
    .limit(params.limit ?? 10)
    .execute();
  return rows.map((r) => ({
    recipientPlayerId: Number(r.recipient_player_id),
    playerName: r.name,
    playerEmail: r.email,
    netAttributedUsd: formatUsd(r.net),
    grossAttributedUsd: formatUsd(r.gross),
    reversedAttributedUsd: formatUsd(r.reversed),
  }));
}

export type RecipientWindowRow = {
  window: TimeWindow;
  snapshotId: string;
  snapshotVersion: number;
  grossAttributedUsd: string;
  reversedAttributedUsd: string;
  netAttributedUsd: string;
  renewalCount: number;
  playerName: string | null;
  playerEmail: string | null;
  resolved: boolean;
};

/** A recipient's figures in the latest snapshot version of every window, newest window first. */
export async function listRecipientWindows(
  db: Db,
  params: { gameId: string; recipientPlayerId: number },
): Promise<RecipientWindowRow[]> {
  const rows = await db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select([
      "s.id",
      "s.version",
      "s.window_start",
      "s.window_end",
      "r.gross_attributed_usd",
      "r.reversed_attributed_usd",
      "r.net_attributed_usd",
      "r.renewal_count",
      "r.player_name",
      "r.player_email",
      "r.resolved",
    ])
    .where("s.game_id", "=", params.gameId)
    .where("r.recipient_player_id", "=", String(params.recipientPlayerId))
    .where(isLatestVersion("s"))
    .orderBy("s.window_start", "desc")
    .limit(200)
    .execute();
  return rows.map((r) => ({
    window: { startMs: r.window_start.getTime(), endMs: r.window_end.getTime() },
    snapshotId: r.id,
    snapshotVersion: r.version,
    grossAttributedUsd: formatUsd(r.gross_attributed_usd),
    reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
    netAttributedUsd: formatUsd(r.net_attributed_usd),
    renewalCount: r.renewal_count,
    playerName: r.player_name,
    playerEmail: r.player_email,
    resolved: r.resolved,
  }));
}

export type StatementEventRow = {
  at: Date;
  kind: string;
  stateAfter: string;
  actorEmail: string | null;
  detail: Record<string, unknown>;
  batchId: string;
};

export async function listStatementEvents(
  db: Db,
  params: { gameId: string; recipientPlayerId: number; limit?: number },
): Promise<StatementEventRow[]> {
  const rows = await db
    .selectFrom("payout_statement_event")
    .select(["at", "kind", "state_after", "actor_email", "detail", "batch_id"])
    .where("game_id", "=", params.gameId)
    .where("recipient_player_id", "=", String(params.recipientPlayerId))
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .limit(params.limit ?? 200)
    .execute();
  return rows.map((r) => ({
    at: r.at,
    kind: r.kind,
    stateAfter: r.state_after,
    actorEmail: r.actor_email,
    detail: r.detail,
    batchId: r.batch_id,
  }));
}

/** Recipients known to the game's snapshots or statements: prefix search on name or email, or the exact id. */
export async function searchRecipients(
  db: Db,
  params: { gameId: string; q: string; limit?: number },
): Promise<{ recipientPlayerId: number; playerName: string | null; playerEmail: string | null }[]> {
  const q = params.q.trim().toLowerCase();
  let query = db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select([
      "r.recipient_player_id",
      sql<string | null>`max(r.player_name)`.as("name"),
      sql<string | null>`max(r.player_email)`.as("email"),
    ])
    .where("s.game_id", "=", params.gameId);
  if (q) query = query.where(matchesRecipient("r", q));
  const rows = await query
    .groupBy("r.recipient_player_id")
    .orderBy("r.recipient_player_id")
    .limit(params.limit ?? 50)
    .execute();
  return rows.map((r) => ({
    recipientPlayerId: Number(r.recipient_player_id),
    playerName: r.name,
    playerEmail: r.email,
  }));
}

// --- Evidence ---------------------------------------------------------------------------------------------------

export type EvidenceLine = {
  periodId: number;
  subscriptionId: string;
  periodSeq: number;
  itemName: string;
  status: string;
  paidAt: Date | null;
  amountUsd: string;
  baseUsd: string | null;
  percentAtRenewal: string | null;
  attributedAmountUsd: string | null;
  attributionUnavailableReason: string | null;
  reconciliation: {
    checked?: boolean;
    expected_base_usd?: string;
    recorded_base_usd?: string;
    base_matches_settled_fee?: boolean;
  } | null;
};

/** A recipient's renewal lines in a snapshot, in settlement order, with reconciliation and attribution reasons. */
export async function listEvidenceLines(
  db: Db,
  params: {
    gameId: string;
    snapshotId: string;
    recipientPlayerId: number;
    page: number;
    pageSize: number;
    mismatchesOnly?: boolean;
  },
): Promise<{ rows: EvidenceLine[]; total: number; mismatches: number; unavailable: number }> {
  const base = recipientLinesQuery(db, params);
  const mismatch = sql<boolean>`coalesce((l.reconciliation->>'base_matches_settled_fee')::boolean, true) = false`;
  const filtered = params.mismatchesOnly ? base.where(mismatch) : base;
  const [rows, counts] = await Promise.all([
    filtered
      .select([
        "l.period_id",
        "l.subscription_id",
        "l.period_seq",
        "l.item_name",
        "l.status",
        "l.paid_at",
        "l.amount_usd",
        "l.base_usd",
        "l.percent_at_renewal",
        "l.attributed_amount_usd",
        "l.attribution_unavailable_reason",
        "l.reconciliation",
      ])
      .orderBy("l.paid_at")
      .orderBy("l.period_id")
      .limit(params.pageSize)
      .offset((params.page - 1) * params.pageSize)
      .execute(),
    base
      .select([
        sql<string>`count(*)`.as("n"),
        sql<string>`count(*) filter (where ${mismatch})`.as("mismatches"),
        sql<string>`count(*) filter (where l.attribution_unavailable_reason is not null)`.as("unavailable"),
      ])
      .executeTakeFirst(),
  ]);
  return {
    rows: rows.map((r) => ({
      periodId: Number(r.period_id),
      subscriptionId: r.subscription_id,
      periodSeq: r.period_seq,
      itemName: r.item_name,
      status: r.status,
      paidAt: r.paid_at,
      amountUsd: formatUsd(r.amount_usd),
      baseUsd: r.base_usd === null ? null : formatUsd(r.base_usd),
      percentAtRenewal: r.percent_at_renewal,
      attributedAmountUsd: r.attributed_amount_usd === null ? null : formatUsd(r.attributed_amount_usd),
      attributionUnavailableReason: r.attribution_unavailable_reason,
      reconciliation: (r.reconciliation as EvidenceLine["reconciliation"]) ?? null,
    })),
    total: Number(counts?.n ?? 0),
    mismatches: Number(counts?.mismatches ?? 0),
    unavailable: Number(counts?.unavailable ?? 0),
  };
}

/** Where each balance carried into a statement came from. */
export async function listCarrySources(
  db: Db,
  params: { gameId: string; statementId: string },
): Promise<{ fromStatementId: string; amountUsd: string; windowStart: Date; windowEnd: Date }[]> {
  const rows = await db
    .selectFrom("payout_carry as c")
    .innerJoin("payout_statement as f", "f.id", "c.from_statement_id")
    .innerJoin("payout_batch as b", "b.id", "f.batch_id")
    .select(["c.from_statement_id", "c.amount_usd", "b.window_start", "b.window_end"])
    .where("f.game_id", "=", params.gameId)
    .where("c.to_statement_id", "=", params.statementId)
    .orderBy("b.window_start")
    .execute();
  return rows.map((r) => ({
    fromStatementId: r.from_statement_id,
    amountUsd: formatUsd(r.amount_usd),
    windowStart: r.window_start,
    windowEnd: r.window_end,
  }));
}

/** A recipient as a snapshot reported them (name, email, resolved), for pages shown before any statement exists. */
export async function getSnapshotRecipient(
  db: Db,
  params: { gameId: string; snapshotId: string; recipientPlayerId: number },
): Promise<{ playerName: string | null; playerEmail: string | null; resolved: boolean } | null> {
  const row = await db
    .selectFrom("snapshot_recipient as r")
    .innerJoin("snapshot as s", "s.id", "r.snapshot_id")
    .select(["r.player_name", "r.player_email", "r.resolved"])
    .where("s.game_id", "=", params.gameId)
    .where("r.snapshot_id", "=", params.snapshotId)
    .where("r.recipient_player_id", "=", String(params.recipientPlayerId))
    .executeTakeFirst();
  return row ? { playerName: row.player_name, playerEmail: row.player_email, resolved: row.resolved } : null;
}
