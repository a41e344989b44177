import "server-only";
import type { Db } from "@/db";
import type { ExportColumn } from "./csv";
import { keysetPages } from "./keyset";
import { booleanText, decimalText, instantText, integerText } from "./sql";
import type { ExportKindDefinition, ResolvedTarget } from "./types";

export const REVERSAL_COLUMNS: readonly ExportColumn[] = [
  { name: "snapshot_id", type: "text", description: "The snapshot (window version) the reversal belongs to." },
  { name: "recipient_player_id", type: "integer", description: "The recipient whose share is reversed." },
  { name: "recipient_name", type: "text", description: "The recipient's name (empty when unresolved)." },
  { name: "recipient_email", type: "text", description: "The recipient's email (empty when unresolved)." },
  { name: "period_id", type: "integer", description: "The refunded renewal line." },
  { name: "subscription_id", type: "text", description: "Its subscription." },
  { name: "period_seq", type: "integer", description: "Which renewal of the subscription." },
  { name: "period_status", type: "text", description: "The period's status at the service." },
  {
    name: "paid_at",
    type: "instant",
    description: "When the refunded renewal settled (possibly in an earlier window).",
  },
  { name: "settled_in_this_window", type: "boolean", description: "Whether that renewal settled inside this window." },
  { name: "period_amount_usd", type: "decimal", description: "Price charged for the period." },
  { name: "originally_attributed_usd", type: "decimal", description: "Share first attributed on the period." },
  {
    name: "refunded_to_date_usd",
    type: "decimal",
    description: "Refunded on the period so far, all windows (reference only).",
  },
  {
    name: "latest_refund_at",
    type: "instant",
    description: "Latest refund of the period, all windows (reference only).",
  },
  {
    name: "reversal_basis",
    type: "text",
    description:
      "refund_receipts (exact, per event) or period_row (coarse: wholly in the window of the latest refund).",
  },
  {
    name: "nets_to_zero_in_window",
    type: "boolean",
    description: "Settled and fully refunded inside the window: pay nothing for it.",
  },
  {
    name: "period_reversed_attributed_usd",
    type: "decimal",
    description:
      "Share reversed on the period in this window. Repeated on each event row of the period: sum it once per period_id.",
  },
  {
    name: "period_partner_revenue_reversed_usd",
    type: "decimal",
    description: "Partner revenue reversed on the period in this window. Repeated like the column above.",
  },
  {
    name: "event_seq",
    type: "integer",
    description:
      "The refund event's position among the period's events in this window (1, 2, ...); empty when the service gave none.",
  },
  {
    name: "refunded_at",
    type: "instant",
    description: "When this refund was recorded; decides the window of the reversal.",
  },
  { name: "refunded_amount_usd", type: "decimal", description: "Amount of this refund." },
  {
    name: "cumulative_refunded_before_usd",
    type: "decimal",
    description: "Refunded on the period before this refund.",
  },
  { name: "cumulative_refunded_after_usd", type: "decimal", description: "Refunded on the period after this refund." },
  {
    name: "reversed_attributed_usd",
    type: "decimal",
    description: "Share reversed by this refund. Sum of the column = share reversed in the window.",
  },
  { name: "partner_revenue_reversed_usd", type: "decimal", description: "Partner revenue reversed by this refund." },
  {
    name: "partner_revenue_reversal_basis",
    type: "text",
    description: "How the partner leg was reversed (clawback, sale_fee_row_reversed, none; or the mode).",
  },
  { name: "is_full_refund", type: "boolean", description: "Whether this refund completed the period's refund." },
  { name: "note", type: "text", description: "The service's note on the reversal." },
];

/** Reversals per page; their refund events come with them, so a page holds a few more rows than this. */
export const REVERSAL_PAGE_SIZE = 2_000;

export function selectReversalCells(
  db: Db,
  target: Pick<ResolvedTarget, "gameId" | "snapshotId">,
  after: string | null,
  limit: number,
) {
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
      "v.snapshot_id as snapshot_id",
      integerText("v.recipient_player_id").as("recipient_player_id"),
      "r.player_name as recipient_name",
      "r.player_email as recipient_email",
      integerText("v.period_id").as("period_id"),
      "v.subscription_id as subscription_id",
      integerText("v.period_seq").as("period_seq"),
      "v.status as period_status",
      instantText("v.paid_at").as("paid_at"),
      booleanText("v.settled_in_this_window").as("settled_in_this_window"),
      decimalText("v.amount_usd").as("period_amount_usd"),
      decimalText("v.originally_attributed_usd").as("originally_attributed_usd"),
      decimalText("v.refunded_to_date_usd").as("refunded_to_date_usd"),
      instantText("v.latest_refund_at").as("latest_refund_at"),
      "v.reversal_basis as reversal_basis",
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
      "e.partner_revenue_reversal_basis as partner_revenue_reversal_basis",
      booleanText("e.is_full_refund").as("is_full_refund"),
      "v.note as note",
    ])
    .orderBy("v.period_id")
    .orderBy("e.seq");
}

export const reversalsExport: ExportKindDefinition = {
  kind: "reversals",
  title: "Reversals and refund events",
  summary:
    "One row per refund event of each reversal in a snapshot (a reversal the service reported without events gets one row with the event columns empty), in period id then event order.",
  columns: REVERSAL_COLUMNS,
  pages(db, target) {
    // A page is a set of whole reversals with their events, so its row count says nothing about whether more
    // follow: a page size of 1 reads on until a page comes back empty (one extra, cheap query).
    return keysetPages<Record<string, string | null>>(
      (after) => selectReversalCells(db, target, after, REVERSAL_PAGE_SIZE).execute(),
      (row) => row.period_id ?? "",
      1,
    );
  },
};
