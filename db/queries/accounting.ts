import "server-only";
import { type InferResult, sql } from "kysely";
import type { DbOrTrx } from "@/db";
import type { AccountingAccount } from "@/db/types";
import { camelRow } from "./camel-row";
import type { RowOf } from "./row-of";

/** The game's mapped accounts (unmapped ones are absent). */
export async function listAccountMap(db: DbOrTrx, params: { gameId: string }) {
  const rows = await db
    .selectFrom("accounting_account_map")
    .select(["account", "code", "tax_rate", "updated_at", "updated_by_email"])
    .where("game_id", "=", params.gameId)
    .orderBy("account")
    .execute();
  return rows.map(camelRow);
}

export type AccountMapRow = RowOf<typeof listAccountMap>;

/** One window of a game, exactly: how window closings and the batch they close are found. */
type GameWindow = { gameId: string; windowStart: Date; windowEnd: Date };

/** Sets one account's mapping; returns what it was before (null when unmapped). */
export async function upsertAccountMap(
  db: DbOrTrx,
  params: { gameId: string; account: AccountingAccount; code: string; taxRate: string | null; byEmail: string | null },
): Promise<{ code: string; taxRate: string | null } | null> {
  const before = await db
    .selectFrom("accounting_account_map")
    .select(["code", "tax_rate"])
    .where("game_id", "=", params.gameId)
    .where("account", "=", params.account)
    .forUpdate()
    .executeTakeFirst();
  await db
    .insertInto("accounting_account_map")
    .values({
      game_id: params.gameId,
      account: params.account,
      code: params.code,
      tax_rate: params.taxRate,
      updated_by_email: params.byEmail,
    })
    .onConflict((oc) =>
      oc.columns(["game_id", "account"]).doUpdateSet({
        code: params.code,
        tax_rate: params.taxRate,
        updated_at: sql`now()`,
        updated_by_email: params.byEmail,
      }),
    )
    .execute();
  return before ? { code: before.code, taxRate: before.tax_rate } : null;
}

export async function getWindowClosing(db: DbOrTrx, params: GameWindow) {
  const row = await db
    .selectFrom("payout_window_closing")
    .select(["batch_id", "closed", "reason", "changed_at", "changed_by_email"])
    .where("game_id", "=", params.gameId)
    .where("window_start", "=", params.windowStart)
    .where("window_end", "=", params.windowEnd)
    .executeTakeFirst();
  return row ? camelRow(row) : null;
}

export type WindowClosingRow = NonNullable<Awaited<ReturnType<typeof getWindowClosing>>>;

/** Whether a closed window overlaps [start, end): a new batch for any part of it is refused. */
export async function findClosedWindowOverlapping(db: DbOrTrx, params: GameWindow) {
  const row = await db
    .selectFrom("payout_window_closing")
    .select(["window_start as windowStart", "window_end as windowEnd"])
    .where("game_id", "=", params.gameId)
    .where("closed", "=", true)
    .where("window_start", "<", params.windowEnd)
    .where("window_end", ">", params.windowStart)
    .executeTakeFirst();
  return row ?? null;
}

export async function saveWindowClosing(
  db: DbOrTrx,
  params: GameWindow & { batchId: string; closed: boolean; reason: string; byEmail: string | null },
): Promise<void> {
  await db
    .insertInto("payout_window_closing")
    .values({
      game_id: params.gameId,
      window_start: params.windowStart,
      window_end: params.windowEnd,
      batch_id: params.batchId,
      closed: params.closed,
      reason: params.reason,
      changed_by_email: params.byEmail,
    })
    .onConflict((oc) =>
      oc.columns(["game_id", "window_start", "window_end"]).doUpdateSet({
        batch_id: params.batchId,
        closed: params.closed,
        reason: params.reason,
        changed_at: sql`now()`,
        changed_by_email: params.byEmail,
      }),
    )
    .execute();
}

/** The paid (or otherwise live) batch of exactly this window, locked for the change. */
export async function getWindowBatchForUpdate(db: DbOrTrx, params: GameWindow) {
  const row = await db
    .selectFrom("payout_batch")
    .select(["id", "status"])
    .where("game_id", "=", params.gameId)
    .where("window_start", "=", params.windowStart)
    .where("window_end", "=", params.windowEnd)
    .where("status", "<>", "discarded")
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

export async function getPayeeThreshold(
  db: DbOrTrx,
  params: { year: number },
): Promise<{ amountUsd: string; updatedAt: Date; updatedByEmail: string | null } | null> {
  const row = await db
    .selectFrom("payee_reporting_threshold")
    .select([sql<string>`amount_usd::text`.as("amount_usd"), "updated_at", "updated_by_email"])
    .where("year", "=", params.year)
    .executeTakeFirst();
  return row ? { amountUsd: row.amount_usd, updatedAt: row.updated_at, updatedByEmail: row.updated_by_email } : null;
}

export async function upsertPayeeThreshold(
  db: DbOrTrx,
  params: { year: number; amountUsd: string; byEmail: string | null },
): Promise<string | null> {
  const before = await getPayeeThreshold(db, { year: params.year });
  await db
    .insertInto("payee_reporting_threshold")
    .values({ year: params.year, amount_usd: params.amountUsd, updated_by_email: params.byEmail })
    .onConflict((oc) =>
      oc.column("year").doUpdateSet({
        amount_usd: params.amountUsd,
        updated_at: sql`now()`,
        updated_by_email: params.byEmail,
      }),
    )
    .execute();
  return before?.amountUsd ?? null;
}

export type PayeeTotalRow = {
  recipientPlayerId: string;
  name: string | null;
  email: string | null;
  paidUsd: string;
  returnedUsd: string;
  netUsd: string;
  payments: number;
};

/**
 * Per recipient of one game, what was paid in a calendar year by payment date, net of returns. The movements are
 * signed: a statement paid (its current payment) and every payment that later came back count positive on the day
 * they were paid; each return counts negative on that same day, so a payment that came back is out of the year it was
 * made, whenever the return was recorded. A rejected payment never left and moves nothing.
 */
export async function listPayeeTotals(db: DbOrTrx, params: { gameId: string; year: number }): Promise<PayeeTotalRow[]> {
  const rows = await payeeTotals(db, params).orderBy("m.recipient_player_id").execute();
  return rows.map(toPayeeTotalRow);
}

/**
 * One page of listPayeeTotals (by recipient, `limit` from `offset`; past the end, the last page), with how many
 * recipients the year has and how many reach `thresholdUsd`: the year computed once, in the database.
 */
export async function pagePayeeTotals(
  db: DbOrTrx,
  params: { gameId: string; year: number; thresholdUsd: string | null; offset: number; limit: number },
): Promise<{ rows: PayeeTotalRow[]; total: number; reaching: number; offset: number }> {
  const { limit } = params;
  const result = await sql<PayeeTotalsRow & { total: number; reaching: number; at: number }>`
    with totals as materialized (${payeeTotals(db, params)}),
    counts as (select count(*)::int as total,
        count(*) filter (where ${params.thresholdUsd}::numeric is not null
          and net::numeric >= ${params.thresholdUsd}::numeric)::int as reaching
      from totals),
    start as (select least(${params.offset}, greatest(0, (total - 1) / ${limit} * ${limit}))::int as at from counts)
    select c.total, c.reaching, start.at, t.*
      from counts c cross join start
      left join lateral (select * from totals order by recipient_player_id::bigint
        offset start.at limit ${limit}) t on true
     order by t.recipient_player_id::bigint`.execute(db);
  const first = result.rows[0];
  return {
    rows: result.rows.filter((r) => r.recipient_player_id !== null).map(toPayeeTotalRow),
    total: first?.total ?? 0,
    reaching: first?.reaching ?? 0,
    offset: first?.at ?? 0,
  };
}

type PayeeTotalsRow = InferResult<ReturnType<typeof payeeTotals>>[number];

function toPayeeTotalRow(r: PayeeTotalsRow): PayeeTotalRow {
  return {
    recipientPlayerId: r.recipient_player_id,
    name: r.name,
    email: r.email,
    paidUsd: r.paid,
    returnedUsd: r.returned,
    netUsd: r.net,
    payments: r.payments,
  };
}

/** Per recipient of the year, unordered (listPayeeTotals). */
function payeeTotals(db: DbOrTrx, params: { gameId: string; year: number }) {
  const from = `${params.year}-01-01`;
  const to = `${params.year + 1}-01-01`;
  const inYear = (day: ReturnType<typeof sql>) => sql<boolean>`${day} >= ${from}::date and ${day} < ${to}::date`;
  const returned = () =>
    db
      .selectFrom("payment_return as r")
      .innerJoin("payout_statement as s", "s.id", "r.statement_id")
      .where("r.game_id", "=", params.gameId)
      .where("r.kind", "=", "returned")
      // A payment undone by hand was recorded by mistake: never made, it is in no year.
      .where("r.undone", "=", false)
      .where("r.paid_on", "is not", null);
  return db
    .with("movements", (qb) =>
      qb
        .selectFrom("payout_statement")
        .select([
          "recipient_player_id",
          sql<string>`paid_amount_usd`.as("amount_usd"),
          sql<string>`paid_on`.as("on_date"),
          "player_name",
          "player_email",
        ])
        .where("game_id", "=", params.gameId)
        .where("state", "=", "paid")
        .where("paid_amount_usd", "is not", null)
        .where(inYear(sql`paid_on`))
        .unionAll(
          returned()
            .select([
              "r.recipient_player_id",
              sql<string>`r.amount_usd`.as("amount_usd"),
              sql<string>`r.paid_on`.as("on_date"),
              "s.player_name",
              "s.player_email",
            ])
            .where(inYear(sql`r.paid_on`)),
        )
        .unionAll(
          // A payment that came back never reached the payee: it is taken out of the year it was made, whenever the
          // return was recorded.
          returned()
            .select([
              "r.recipient_player_id",
              sql<string>`-r.amount_usd`.as("amount_usd"),
              sql<string>`r.paid_on`.as("on_date"),
              "s.player_name",
              "s.player_email",
            ])
            .where(inYear(sql`r.paid_on`)),
        ),
    )
    .selectFrom("movements as m")
    .select([
      sql<string>`m.recipient_player_id::text`.as("recipient_player_id"),
      sql<string | null>`(array_agg(m.player_name order by m.on_date desc))[1]`.as("name"),
      sql<string | null>`(array_agg(m.player_email order by m.on_date desc))[1]`.as("email"),
      sql<string>`coalesce(sum(m.amount_usd) filter (where m.amount_usd > 0), 0)::numeric(14,2)::text`.as("paid"),
      sql<string>`coalesce(-sum(m.amount_usd) filter (where m.amount_usd < 0), 0)::numeric(14,2)::text`.as("returned"),
      sql<string>`sum(m.amount_usd)::numeric(14,2)::text`.as("net"),
      // Payments that stood: each one that came back is in the year twice, made and taken out.
      sql<number>`(count(*) filter (where m.amount_usd > 0) - count(*) filter (where m.amount_usd < 0))::int`.as(
        "payments",
      ),
    ])
    .groupBy("m.recipient_player_id");
}

/** Years in which the game paid anyone, newest first. */
export async function listPaymentYears(db: DbOrTrx, params: { gameId: string }): Promise<number[]> {
  const rows = await db
    .selectFrom("payout_statement")
    .select(sql<number>`extract(year from paid_on)::int`.as("year"))
    .where("game_id", "=", params.gameId)
    .where("state", "=", "paid")
    .where("paid_on", "is not", null)
    .groupBy(sql`extract(year from paid_on)`)
    .orderBy(sql`extract(year from paid_on)`, "desc")
    .execute();
  return rows.map((r) => r.year);
}
