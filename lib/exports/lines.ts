import "server-only";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db";
import type { ExportColumn, ExportRow } from "./csv";
import { decimalText, instantText, integerText, queryCells, utcTimestampText, utcTimestampToInstant } from "./sql";
import { streamKeysetCells } from "./stream";
import type { ExportKindDefinition, ResolvedTarget } from "./types";

export const LINE_COLUMNS: readonly ExportColumn[] = [
  { name: "snapshot_id", type: "text", description: "The snapshot (window version) the line belongs to." },
  { name: "recipient_player_id", type: "integer", description: "The player credited with the renewal." },
  {
    name: "recipient_name",
    type: "text",
    description: "The recipient's name as the service reported it (empty when unresolved).",
  },
  { name: "recipient_email", type: "text", description: "The recipient's email (empty when unresolved)." },
  { name: "period_id", type: "integer", description: "The service's id of the renewal line (billing period)." },
  { name: "subscription_id", type: "text", description: "The subscription renewed." },
  { name: "period_seq", type: "integer", description: "Which renewal of the subscription (1 = first period)." },
  { name: "item_id", type: "text", description: "The subscribed item." },
  { name: "item_name", type: "text", description: "The item's name." },
  { name: "status", type: "text", description: "The period's status at the service (paid, refunded, ...)." },
  { name: "period_start", type: "instant", description: "Start of the billing period (UTC)." },
  { name: "period_end", type: "instant", description: "End of the billing period (UTC)." },
  { name: "paid_at", type: "instant", description: "When the renewal settled; decides the window it belongs to." },
  { name: "amount_usd", type: "decimal", description: "Price charged for the period." },
  { name: "invo_fee_usd", type: "decimal", description: "The service's fee (never reversed by a refund)." },
  {
    name: "partner_revenue_settled_usd",
    type: "decimal",
    description: "The partner's leg at settlement (amount less fee).",
  },
  {
    name: "partner_revenue_reversed_usd",
    type: "decimal",
    description: "Partner revenue reversed by refunds of the period, to date.",
  },
  { name: "partner_revenue_usd", type: "decimal", description: "Partner revenue net of reversal." },
  { name: "percent_at_renewal", type: "decimal", description: "Revenue-share rate in force at the renewal (percent)." },
  {
    name: "base_usd",
    type: "decimal",
    description: "The base the share is a percentage of (amount after the service fee).",
  },
  {
    name: "attributed_amount_usd",
    type: "decimal",
    description: "Revenue share earned by the recipient on this renewal (gross, before reversals).",
  },
  {
    name: "attribution_unavailable_reason",
    type: "text",
    description: "Why no share was recorded, when none was (spec keys).",
  },
  {
    name: "base_matches_settled_fee",
    type: "boolean",
    description: "The service's own reconciliation of the base (empty when not checked).",
  },
  { name: "transaction_id", type: "text", description: "The service's transaction of the charge." },
  { name: "mint_order_id", type: "text", description: "The mint order (empty when the wallet covered the period)." },
];

export const LINE_PAGE_SIZE = 2_000;

/** Where the cells that the two reads of the lines get differently come from. */
type LineCellSources = {
  snapshotId: RawBuilder<string | null>;
  name: RawBuilder<string | null>;
  email: RawBuilder<string | null>;
  instant: (ref: string) => RawBuilder<string | null>;
};

/** The select list of a line's cells, in LINE_COLUMNS order. */
function lineCells(from: LineCellSources) {
  const text = (ref: string) => sql<string | null>`${sql.ref(ref)}`;
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
export function selectLineCells(db: Db, target: Pick<ResolvedTarget, "gameId" | "snapshotId">) {
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

/** Cells of linePage that are filled in by the reader: the snapshot id, the recipient's name and email. */
const SNAPSHOT_CELL = 0;
const RECIPIENT_CELL = 1;
const NAME_CELL = 2;
const EMAIL_CELL = 3;
const PERIOD_CELL = 4;
const INSTANT_CELLS = [10, 11, 12] as const;

const NO_CELL = sql<null>`null::text`;

/**
 * One page of lines as arrays of cells in LINE_COLUMNS order. The database sends what only it has; the snapshot
 * id (the same on every line) and the recipient's name and email (looked up once per export) are left null for the
 * reader, and instants come as the UTC timestamp's text, which costs PostgreSQL far less than formatting them.
 */
function linePage(db: Db, snapshotId: string, after: string | null) {
  let query = db
    .selectFrom("snapshot_line as l")
    .where("l.snapshot_id", "=", snapshotId)
    .select(lineCells({ snapshotId: NO_CELL, name: NO_CELL, email: NO_CELL, instant: utcTimestampText }))
    .orderBy("l.period_id")
    .limit(LINE_PAGE_SIZE);
  if (after !== null) query = query.where("l.period_id", ">", after);
  return query;
}

type RecipientCells = { name: string | null; email: string | null };

/** Name and email of every recipient of the snapshot, by player id: one read, held for the whole export. */
async function recipientCells(db: Db, snapshotId: string): Promise<Map<string, RecipientCells>> {
  const rows = await queryCells(
    db,
    db
      .selectFrom("snapshot_recipient")
      .where("snapshot_id", "=", snapshotId)
      .select([integerText("recipient_player_id").as("id"), "player_name", "player_email"]),
  );
  const byId = new Map<string, RecipientCells>();
  for (const [id, name, email] of rows) byId.set(id as string, { name: name ?? null, email: email ?? null });
  return byId;
}

export async function* linePages(
  db: Db,
  target: Pick<ResolvedTarget, "snapshotId">,
): AsyncGenerator<ExportRow[], void, undefined> {
  const recipients = await recipientCells(db, target.snapshotId);
  const batches = streamKeysetCells(db, (after) => linePage(db, target.snapshotId, after), {
    keyIndex: PERIOD_CELL,
    pageSize: LINE_PAGE_SIZE,
  });
  for await (const batch of batches) {
    for (const cells of batch) {
      cells[SNAPSHOT_CELL] = target.snapshotId;
      const recipient = recipients.get(cells[RECIPIENT_CELL] as string);
      if (recipient) {
        cells[NAME_CELL] = recipient.name;
        cells[EMAIL_CELL] = recipient.email;
      }
      for (const at of INSTANT_CELLS) {
        const text = cells[at];
        if (text != null) cells[at] = utcTimestampToInstant(text);
      }
    }
    yield batch;
  }
}

export const linesExport: ExportKindDefinition = {
  kind: "lines",
  title: "Renewal lines",
  summary: "One row per renewal line (settled renewal with its attribution) of a snapshot, in period id order.",
  columns: LINE_COLUMNS,
  pages: linePages,
};
