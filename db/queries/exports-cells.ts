import "server-only";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db";

/**
 * The SQL of the streamed exports (lib/exports/lines.ts, reversals.ts): cells made text by PostgreSQL, in the column
 * order of the files. Each select list here must stay in step with its file's columns (tests/exports/values.test.ts).
 */

type Target = { gameId: string; snapshotId: string };

export const LINE_PAGE_SIZE = 2_000;

/**
 * Cells are made text by PostgreSQL itself: `numeric::text` is the exact decimal as stored, and instants are
 * formatted in UTC there, so the export never parses a value into a JS number or Date and back.
 */

/** The exact decimal text of a numeric column ("12.30", "-0.35"). */
export function decimalText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`(${sql.ref(ref)})::text`;
}

/** An integer or bigint column as digits. */
export function integerText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`(${sql.ref(ref)})::text`;
}

export function booleanText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`case when ${sql.ref(ref)} then 'true' when not ${sql.ref(ref)} then 'false' end`;
}

/**
 * ISO 8601 in UTC with a Z: "2026-03-01T00:00:00Z", with fractional seconds only when there are any
 * ("2026-03-01T00:00:00.25Z"), like lib/time.ts formatInstant. Null stays null.
 */
export function instantText(ref: string): RawBuilder<string | null> {
  return sql<
    string | null
  >`rtrim(rtrim(to_char(${sql.ref(ref)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') || 'Z'`;
}

/**
 * An instant as PostgreSQL's own text of the UTC timestamp, "2026-03-01 00:00:02.6": far cheaper for the database
 * than to_char. utcTimestampToInstant turns it into the same text instantText gives.
 */
export function utcTimestampText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`(${sql.ref(ref)} at time zone 'UTC')::text`;
}

/** A text column as it is. */
function text(ref: string): RawBuilder<string | null> {
  return sql<string | null>`${sql.ref(ref)}`;
}

/** Where the cells that the two reads of the lines get differently come from. */
type LineCellSources = {
  snapshotId: RawBuilder<string | null>;
  name: RawBuilder<string | null>;
  email: RawBuilder<string | null>;
  instant: (ref: string) => RawBuilder<string | null>;
};

/** The select list of a line's cells, in LINE_COLUMNS order. */
function lineCells(from: LineCellSources) {
  return [
    from.snapshotId.as("snapshot_id"),
    integerText("l.recipient_player_id").as("recipient_player_id"),
    from.name.as("recipient_name"),
    from.email.as("recipient_email"),
    integerText("l.period_id").as("period_id"),
    text("l.subscription_id").as("subscription_id"),
    integerText("l.period_seq").as("period_seq"),
    text("l.item_id").as("item_id"),
    text("l.item_name").as("item_name"),
    text("l.status").as("status"),
    from.instant("l.period_start").as("period_start"),
    from.instant("l.period_end").as("period_end"),
    from.instant("l.paid_at").as("paid_at"),
    decimalText("l.amount_usd").as("amount_usd"),
    decimalText("l.invo_fee_usd").as("invo_fee_usd"),
    decimalText("l.partner_revenue_settled_usd").as("partner_revenue_settled_usd"),
    decimalText("l.partner_revenue_reversed_usd").as("partner_revenue_reversed_usd"),
    decimalText("l.partner_revenue_usd").as("partner_revenue_usd"),
    decimalText("l.percent_at_renewal").as("percent_at_renewal"),
    decimalText("l.base_usd").as("base_usd"),
    decimalText("l.attributed_amount_usd").as("attributed_amount_usd"),
    text("l.attribution_unavailable_reason").as("attribution_unavailable_reason"),
    sql<
      string | null
    >`case l.reconciliation ->> 'base_matches_settled_fee' when 'true' then 'true' when 'false' then 'false' end`.as(
      "base_matches_settled_fee",
    ),
    text("l.transaction_id").as("transaction_id"),
    text("l.mint_order_id").as("mint_order_id"),
  ];
}

/**
 * Every renewal line of one snapshot as export cells, in period id order, formatted by PostgreSQL alone: what the
 * file holds, as one SELECT. The export itself reads pages of linePage (same cells, less work for the database);
 * a test holds the two equal, and the bench COPYs this one.
 */
export function selectLineCells(db: Db, target: Target) {
  return db
    .selectFrom("snapshot_line as l")
    .innerJoin("snapshot as s", "s.id", "l.snapshot_id")
    .leftJoin("snapshot_recipient as r", (join) =>
      join.onRef("r.snapshot_id", "=", "l.snapshot_id").onRef("r.recipient_player_id", "=", "l.recipient_player_id"),
    )
    .where("s.game_id", "=", target.gameId)
    .where("l.snapshot_id", "=", target.snapshotId)
    .select(
      lineCells({
        snapshotId: sql<string>`l.snapshot_id::text`,
        name: sql<string | null>`r.player_name`,
        email: sql<string | null>`r.player_email`,
        instant: instantText,
      }),
    )
    .orderBy("l.period_id");
}

const NO_CELL = sql<null>`null::text`;

/**
 * One page of lines as arrays of cells in LINE_COLUMNS order. The database sends what only it has; the snapshot
 * id (the same on every line) and the recipient's name and email (looked up once per export) are left null for the
 * reader, and instants come as the UTC timestamp's text, which costs PostgreSQL far less than formatting them.
 */
export function linePage(db: Db, snapshotId: string, after: string | null) {
  let query = db
    .selectFrom("snapshot_line as l")
    .where("l.snapshot_id", "=", snapshotId)
    .select(lineCells({ snapshotId: NO_CELL, name: NO_CELL, email: NO_CELL, instant: utcTimestampText }))
    .orderBy("l.period_id")
    .limit(LINE_PAGE_SIZE);
  if (after !== null) query = query.where("l.period_id", ">", after);
  return query;
}

/** Name and email of every recipient of a snapshot, the id as text. */
export function selectRecipientCells(db: Db, snapshotId: string) {
  return db
    .selectFrom("snapshot_recipient")
    .where("snapshot_id", "=", snapshotId)
    .select([integerText("recipient_player_id").as("id"), "player_name", "player_email"]);
}

export function selectReversalCells(db: Db, target: Target, after: string | null, limit: number) {
  return db
    .selectFrom((eb) => {
      let page = eb
        .selectFrom("snapshot_reversal as rv")
        .innerJoin("snapshot as s", "s.id", "rv.snapshot_id")
        .where("s.game_id", "=", target.gameId)
        .where("rv.snapshot_id", "=", target.snapshotId)
        .selectAll("rv")
        .orderBy("rv.period_id")
        .limit(limit);
      if (after !== null) page = page.where("rv.period_id", ">", after);
      return page.as("v");
    })
    .leftJoin("snapshot_refund_event as e", (join) =>
      join.onRef("e.snapshot_id", "=", "v.snapshot_id").onRef("e.period_id", "=", "v.period_id"),
    )
    .leftJoin("snapshot_recipient as r", (join) =>
      join.onRef("r.snapshot_id", "=", "v.snapshot_id").onRef("r.recipient_player_id", "=", "v.recipient_player_id"),
    )
    .select([
      text("v.snapshot_id").as("snapshot_id"),
      integerText("v.recipient_player_id").as("recipient_player_id"),
      text("r.player_name").as("recipient_name"),
      text("r.player_email").as("recipient_email"),
      integerText("v.period_id").as("period_id"),
      text("v.subscription_id").as("subscription_id"),
      integerText("v.period_seq").as("period_seq"),
      text("v.status").as("period_status"),
      instantText("v.paid_at").as("paid_at"),
      booleanText("v.settled_in_this_window").as("settled_in_this_window"),
      decimalText("v.amount_usd").as("period_amount_usd"),
      decimalText("v.originally_attributed_usd").as("originally_attributed_usd"),
      decimalText("v.refunded_to_date_usd").as("refunded_to_date_usd"),
      instantText("v.latest_refund_at").as("latest_refund_at"),
      text("v.reversal_basis").as("reversal_basis"),
      booleanText("v.nets_to_zero_in_window").as("nets_to_zero_in_window"),
      decimalText("v.reversed_attributed_usd").as("period_reversed_attributed_usd"),
      decimalText("v.partner_revenue_reversed_usd").as("period_partner_revenue_reversed_usd"),
      integerText("e.seq").as("event_seq"),
      instantText("e.refunded_at").as("refunded_at"),
      decimalText("e.refunded_amount_usd").as("refunded_amount_usd"),
      decimalText("e.cumulative_refunded_before_usd").as("cumulative_refunded_before_usd"),
      decimalText("e.cumulative_refunded_after_usd").as("cumulative_refunded_after_usd"),
      decimalText("e.reversed_attributed_usd").as("reversed_attributed_usd"),
      decimalText("e.partner_revenue_reversed_usd").as("partner_revenue_reversed_usd"),
      text("e.partner_revenue_reversal_basis").as("partner_revenue_reversal_basis"),
      booleanText("e.is_full_refund").as("is_full_refund"),
      text("v.note").as("note"),
    ])
    .orderBy("v.period_id")
    .orderBy("e.seq");
}
