import "server-only";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db";
import { UUID } from "@/core/uuid";

/**
 * The SQL of the streamed exports (lib/exports/lines.ts, reversals.ts): cells made text by PostgreSQL, in the column
 * order of the files. Each select list here must stay in step with its file's columns (tests/exports/values.test.ts).
 */

type Target = { gameId: string; snapshotId: string };

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

type NamedCell = [string, RawBuilder<string | null>];

/** Cells of the line's own columns, each made text by `toText` and named after its column. */
function columnsOf(toText: (ref: string) => RawBuilder<string | null>, ...names: string[]): NamedCell[] {
  return names.map((name) => [name, toText(`l.${name}`)]);
}

/** The line's numeric columns, written as decimals (in file order). */
const LINE_DECIMALS = [
  "amount_usd",
  "invo_fee_usd",
  "partner_revenue_settled_usd",
  "partner_revenue_reversed_usd",
  "partner_revenue_usd",
  "percent_at_renewal",
  "base_usd",
  "attributed_amount_usd",
];

/** The cells of a line, in LINE_COLUMNS order, each with its column's name. */
function lineCells(from: LineCellSources): NamedCell[] {
  return [
    ["snapshot_id", from.snapshotId],
    ...columnsOf(integerText, "recipient_player_id"),
    ["recipient_name", from.name],
    ["recipient_email", from.email],
    ...columnsOf(integerText, "period_id"),
    ...columnsOf(text, "subscription_id"),
    ...columnsOf(integerText, "period_seq"),
    ...columnsOf(text, "item_id", "item_name", "status"),
    ...columnsOf(from.instant, "period_start", "period_end", "paid_at"),
    ...columnsOf(decimalText, ...LINE_DECIMALS),
    ...columnsOf(text, "attribution_unavailable_reason"),
    [
      "base_matches_settled_fee",
      sql<string | null>`case l.reconciliation ->> 'base_matches_settled_fee'
        when 'true' then 'true' when 'false' then 'false' end`,
    ],
    ...columnsOf(text, "transaction_id", "mint_order_id"),
  ];
}

/** A value in a statement: bound as a parameter, or written into its text (COPY takes no parameters). */
type Bind = (value: string) => RawBuilder<string>;

/** The renewal lines of one snapshot with their recipients, in period id order. */
function linesWithRecipients(db: Db, target: Target, bind: Bind) {
  return db
    .selectFrom("snapshot_line as l")
    .innerJoin("snapshot as s", "s.id", "l.snapshot_id")
    .leftJoin("snapshot_recipient as r", (join) =>
      join.onRef("r.snapshot_id", "=", "l.snapshot_id").onRef("r.recipient_player_id", "=", "l.recipient_player_id"),
    )
    .where("s.game_id", "=", bind(target.gameId))
    .where("l.snapshot_id", "=", bind(target.snapshotId))
    .orderBy("l.period_id");
}

const LINE_SOURCES: LineCellSources = {
  snapshotId: sql<string>`l.snapshot_id::text`,
  name: sql<string | null>`r.player_name`,
  email: sql<string | null>`r.player_email`,
  instant: instantText,
};

/**
 * Every renewal line of one snapshot as export cells, in period id order, formatted by PostgreSQL alone: what the
 * file holds, as one SELECT. A test holds the export equal to it, and the bench COPYs it.
 */
export function selectLineCells(db: Db, target: Target) {
  return linesWithRecipients(db, target, (value) => sql.val(value)).select(
    lineCells(LINE_SOURCES).map(([name, cell]) => cell.as(name)),
  );
}

const DIGITS = /^\d{1,19}$/;

export type CsvCellKind = "text" | "decimal" | "other";

/**
 * Instants as the lines file's COPY writes them: the same text as instantText, made by PostgreSQL's own output of a
 * timestamp (ISO date style, as node-postgres needs it anyway; fractional seconds only when there are any), which
 * costs less than to_char. A test holds the file equal to selectLineCells, which uses instantText.
 */
function copyInstantText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`replace((${sql.ref(ref)} at time zone 'UTC')::text, ' ', 'T') || 'Z'`;
}

const COPY_SOURCES: LineCellSources = { ...LINE_SOURCES, instant: copyInstantText };

/** The first characters that make a text cell a formula (lib/exports/csv.ts neutraliseText): = + - @ tab CR '. */
const FORMULA_STARTS = sql.raw("61, 43, 45, 64, 9, 13, 39");
/** The same characters after a semicolon (lib/exports/csv.ts neutraliseAfterSemicolons), as a PostgreSQL pattern. */
const AFTER_SEMICOLON = ";(?=[=+@\t\r'-])";

/**
 * How the lines file writes a cell, so that PostgreSQL's CSV writer (RFC 4180 quoting, NULL as an empty cell) gives
 * its exact bytes: text neutralised against formulas as lib/exports/csv.ts neutraliseText does and an empty text
 * as an empty cell (not `""`); a decimal refused unless it is a plain number, as the CSV writer refuses it. The
 * checks are made on the values (the first character's code, the numeric) so that each cell is made text once.
 */
function csvCell(name: string, cell: RawBuilder<string | null>, kind: CsvCellKind): RawBuilder<string | null> {
  if (kind === "text") {
    // After a semicolon too, as neutraliseAfterSemicolons does (strpos first: most cells hold none).
    const inner = sql<string | null>`case when strpos(${cell}, ';') > 0
      then regexp_replace(${cell}, ${sql.lit(AFTER_SEMICOLON)}, ${sql.lit(";'")}, 'g') else ${cell} end`;
    return sql<string | null>`case when ascii(${cell}) in (${FORMULA_STARTS}) then chr(39) || ${inner}
      else nullif(${inner}, '') end`;
  }
  if (kind === "decimal") {
    const value = sql.ref(`l.${name}`);
    return sql<string | null>`case when ${value} in ('NaN', 'Infinity', '-Infinity')
      then (${sql.lit(`column ${name} holds `)} || ${value}::text || ', not a decimal number')::numeric::text
      else ${cell} end`;
  }
  return cell;
}

const DECIMAL_COLUMNS: ReadonlySet<string> = new Set(LINE_DECIMALS);

/**
 * The COPY statement writing the lines after `after` (all of them when null) of one snapshot as the records of the
 * lines file (without its header), in period id order. Its values are written into its text (COPY takes no
 * parameters): they are checked.
 */
export function copyLineRecords(
  db: Db,
  params: Target & { after: string | null; kinds: Readonly<Record<string, CsvCellKind>> },
): string {
  if (!UUID.test(params.snapshotId)) throw new Error("copyLineRecords: a snapshot id is a UUID");
  if (params.after !== null && !DIGITS.test(params.after)) throw new Error("copyLineRecords: period ids are digits");
  let query = linesWithRecipients(db, params, (value) => sql.lit(value)).select(
    lineCells(COPY_SOURCES).map(([name, cell]) => {
      const kind = params.kinds[name] ?? "other";
      if (kind === "decimal" && !DECIMAL_COLUMNS.has(name))
        throw new Error(`copyLineRecords: ${name} is not a decimal column of the line`);
      return csvCell(name, cell, kind).as(name);
    }),
  );
  if (params.after !== null) query = query.where("l.period_id", ">", sql.lit(params.after));
  const compiled = query.compile();
  if (compiled.parameters.length > 0) throw new Error("copyLineRecords: COPY takes no parameters");
  return `copy (${compiled.sql}) to stdout (format csv)`;
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
      // A reversal without events has one row, which carries the period's figure: the column's sum is then still
      // the share reversed in the window.
      sql<string | null>`(case when e.period_id is null then v.reversed_attributed_usd
        else e.reversed_attributed_usd end)::text`.as("reversed_attributed_usd"),
      decimalText("e.partner_revenue_reversed_usd").as("partner_revenue_reversed_usd"),
      text("e.partner_revenue_reversal_basis").as("partner_revenue_reversal_basis"),
      booleanText("e.is_full_refund").as("is_full_refund"),
      text("v.note").as("note"),
    ])
    .orderBy("v.period_id")
    .orderBy("e.seq");
}
